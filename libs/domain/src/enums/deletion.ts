import { enumObject } from './enum-helpers';

/**
 * `reason` of a failed bulk-delete entry. DESIGN.md lists the first five; `in_transit` is added for a
 * diamond that is inside an unanswered shipment (it cannot be deleted while another participant may
 * still accept it).
 */
export const DELETE_FAILURE_REASON_VALUES = ['not_found', 'not_owner', 'unlocked', 'descendant_unlocked', 'has_descendants', 'in_transit'] as const;
export const DeleteFailureReason = enumObject(DELETE_FAILURE_REASON_VALUES);
export type DeleteFailureReason = (typeof DELETE_FAILURE_REASON_VALUES)[number];
