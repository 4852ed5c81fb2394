import { Param } from '@nestjs/common';
import { isDiamondId, isFileHash } from '@dtp/domain';
import { PathIdPipe } from '@dtp/service-kit';

/**
 * Search's path ids, checked for their format before any query: out of format answers 404 like an unknown id
 * (DESIGN.md "Input bounds"). A file hash is accepted in either case (ETags are compared lowercased).
 */
export const DiamondIdParam = () => Param('diamond_id', new PathIdPipe(isDiamondId, { message: 'diamond not found' }));
export const FileHashParam = () => Param('file_hash', new PathIdPipe((v) => isFileHash(v.toLowerCase()), { message: 'file not found' }));
