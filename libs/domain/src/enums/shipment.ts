import { enumObject } from './enum-helpers';

export const SHIPMENT_TYPE_VALUES = ['rough', 'polished'] as const;
export const ShipmentType = enumObject(SHIPMENT_TYPE_VALUES);
export type ShipmentType = (typeof SHIPMENT_TYPE_VALUES)[number];

/**
 * Shipment status. The spec only observes `action_required` and says the full set is "not shown".
 * Decision: a shipment is `action_required` while any of its diamonds awaits the recipient's answer,
 * and becomes `completed` once every diamond has been accepted or rejected.
 */
export const SHIPMENT_STATUS_VALUES = ['action_required', 'completed'] as const;
export const ShipmentStatus = enumObject(SHIPMENT_STATUS_VALUES);
export type ShipmentStatus = (typeof SHIPMENT_STATUS_VALUES)[number];

/**
 * Per-diamond `transfer_state` inside a shipment. The spec only observes `transfer_in_confirmed`.
 * Decision: `transfer_in_pending` (shipped, not answered yet) -> `transfer_in_confirmed` (accepted by
 * the recipient) or `transfer_in_rejected` (rejected, back with the sender). A confirmed diamond inside
 * an `action_required` shipment (the spec's sample) is a polished shipment answered in part.
 */
export const TRANSFER_STATE_VALUES = ['transfer_in_pending', 'transfer_in_confirmed', 'transfer_in_rejected'] as const;
export const TransferState = enumObject(TRANSFER_STATE_VALUES);
export type TransferState = (typeof TRANSFER_STATE_VALUES)[number];
