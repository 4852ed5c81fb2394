import { Param } from '@nestjs/common';
import { isDiamondId, isGradingId } from '@dtp/domain';
import { PathIdPipe } from '@dtp/service-kit';

/**
 * The platform's path ids, each checked for its format before any query: out of format answers the same 404 as
 * an unknown id (DESIGN.md "Input bounds").
 */
export const DiamondIdParam = (name = 'diamond_id') => Param(name, new PathIdPipe(isDiamondId, { message: 'diamond not found' }));
/** Shipment ids are minted like diamond ids. */
export const ShipmentIdParam = () => Param('shipment_id', new PathIdPipe(isDiamondId, { message: 'shipment not found' }));
/** Graded measurement ids: UUIDs (the holder's own, GIS's) or a lab's id in the same safe alphabet. */
export const GradingIdParam = () => Param('grading_id', new PathIdPipe(isGradingId, { message: 'graded measurement not found' }));
