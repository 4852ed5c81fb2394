import { Param } from '@nestjs/common';
import { canonicalUuid, isDiamondId, isUuid } from '@dtp/domain';
import { PathIdPipe } from '@dtp/service-kit';
import { DIAMOND_NOT_FOUND, REQUEST_NOT_FOUND } from './errors';

/**
 * GIS's path ids, checked for their format before any query: out of format answers the same 404 `{detail}` as an
 * unknown id (DESIGN.md "Input bounds").
 */
export const DiamondIdParam = (notFound = DIAMOND_NOT_FOUND) => Param('diamond_id', new PathIdPipe(isDiamondId, { detail: notFound }));
/** Validation request ids are UUIDs. */
export const RequestIdParam = () => Param('request_id', new PathIdPipe(isUuid, { detail: REQUEST_NOT_FOUND }, canonicalUuid));
