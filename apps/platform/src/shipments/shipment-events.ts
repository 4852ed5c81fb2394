import { EventTypes, makeEnvelope, Topics } from '@dtp/domain';
import type { OutboxEvent } from '@dtp/events';
import type { ShipmentDiamondRow, ShipmentRow } from './shipment.entity';
import { toShipmentChanged } from './shipment.mapper';

/** `shipment.changed` on platform.shipments.v1, key = shipment id, revision = the shipment's revision. */
export function shipmentChanged(s: ShipmentRow, diamonds: ShipmentDiamondRow[], at: Date = new Date()): OutboxEvent {
  const revision = Number(s.revision);
  const envelope = makeEnvelope({ event_type: EventTypes.SHIPMENT_CHANGED, data: toShipmentChanged(s, diamonds), revision, occurred_at: at });
  return { topic: Topics.PLATFORM_SHIPMENTS, key: s.shipment_id, eventType: envelope.event_type, revision, payload: envelope };
}
