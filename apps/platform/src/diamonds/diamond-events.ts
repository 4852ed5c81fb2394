import { DiamondV1, envelopeJson, EventTypes, makeEnvelope, Topics } from '@dtp/domain';
import type { OutboxEvent } from '@dtp/events';

/**
 * `diamond.upserted` carrying the whole current record (event-carried state); revision = the diamond's. The record is
 * final here (its custody entry hashed it): its JSON text is written now, once, for the envelope's text (`payloadText`)
 * and for the others that write it (`dataText`: the `dtp.diamond.updated` feed events, the registration's answer).
 */
export function diamondUpserted(record: DiamondV1, revision: number, at: Date = new Date()): OutboxEvent & { payloadText: string; dataText: string } {
  const envelope = makeEnvelope({ event_type: EventTypes.DIAMOND_UPSERTED, data: record, revision, occurred_at: at });
  const dataText = JSON.stringify(record);
  return {
    topic: Topics.PLATFORM_DIAMONDS,
    key: record.diamond_id,
    eventType: envelope.event_type,
    revision,
    payload: envelope,
    payloadText: envelopeJson(envelope, dataText),
    dataText,
  };
}

/**
 * `diamond.deleted` followed by a tombstone (null payload, same key) so the compacted topic forgets the
 * diamond. `revision` is the diamond's last revision plus one.
 */
export function diamondDeleted(diamondId: string, revision: number, at: Date = new Date()): OutboxEvent[] {
  const envelope = makeEnvelope({ event_type: EventTypes.DIAMOND_DELETED, data: { diamond_id: diamondId }, revision, occurred_at: at });
  return [
    { topic: Topics.PLATFORM_DIAMONDS, key: diamondId, eventType: envelope.event_type, revision, payload: envelope },
    { topic: Topics.PLATFORM_DIAMONDS, key: diamondId, eventType: envelope.event_type, revision, payload: null },
  ];
}
