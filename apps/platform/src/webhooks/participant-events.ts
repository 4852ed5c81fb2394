import type { CustodyAction, DiamondV1, EventEnvelope, ParticipantEventType } from '@dtp/domain';
import { envelopeJson, newEventId, ParticipantEventTypes } from '@dtp/domain';
import { jsonArrayText, jsonElements, type Sql } from '@dtp/database';
import type { OutboxEvent } from '@dtp/events';

/**
 * An event one participant receives (DESIGN.md "Events out to participants' systems"), written in the transaction
 * of the change that causes it: a `participant_events` row (the feed) and one `webhook_deliveries` row per enabled
 * webhook of that participant that takes its type.
 */
export interface ParticipantEventWrite {
  event_id: string;
  participant_id: string;
  type: ParticipantEventType | 'dtp.ping';
  /** The diamond or shipment id. */
  subject: string;
  time: Date;
  /** The CloudEvent's `data`, as JSON text. */
  data: string;
}

export function participantEvent(
  participantId: string,
  type: ParticipantEventWrite['type'],
  subject: string,
  data: unknown,
  time: Date,
): ParticipantEventWrite {
  return { event_id: newEventId(), participant_id: participantId, type, subject, time, data: JSON.stringify(data) };
}

/** One event for each distinct participant of `participants` (nulls skipped), e.g. holder and uploader. */
export function eventsFor(
  participants: (string | null | undefined)[],
  type: ParticipantEventWrite['type'],
  subject: string,
  data: unknown,
  time: Date,
): ParticipantEventWrite[] {
  return eventsWithText(participants, type, subject, JSON.stringify(data), time);
}

/** eventsFor with the data's JSON text already written. */
function eventsWithText(
  participants: (string | null | undefined)[],
  type: ParticipantEventWrite['type'],
  subject: string,
  text: string,
  time: Date,
): ParticipantEventWrite[] {
  return [...new Set(participants.filter((p): p is string => typeof p === 'string' && p !== ''))].map((p) => ({
    event_id: newEventId(),
    participant_id: p,
    type,
    subject,
    time,
    data: text,
  }));
}

/** What the diamond writes know of a change: the row after it, its custody entries and its outbox events. */
interface DiamondChangeFacts {
  rows: { diamond_id: string; holder_id: string; uploader_id: string }[];
  entries: { entry: { diamond_id: string; action: CustodyAction } }[];
  events: OutboxEvent[];
}

/**
 * `dtp.diamond.updated` for the holder and the uploader of every diamond a write upserts (the outbox's
 * `diamond.upserted` record, the custody entry's action in `data.action`). Derived in the one place every change of
 * a diamond is written (DiamondsRepository), so no change can forget it.
 *
 * Answers too the outbox events to write: `events`, each `diamond.upserted` one with its `payloadText`. The record's
 * JSON text is written once, here, for both the event's data and the envelope (a registration's record was
 * otherwise serialised twice more, and copied once, in every registration's statement).
 */
export function diamondUpdatedEvents({ rows, entries, events }: DiamondChangeFacts): { notices: ParticipantEventWrite[]; outbox: OutboxEvent[] } {
  const notices: ParticipantEventWrite[] = [];
  const outbox: OutboxEvent[] = [];
  const rowOf = rows.length > 1 ? new Map(rows.map((r) => [r.diamond_id, r])) : null;
  const actionOf = entries.length > 1 ? new Map(entries.map((x) => [x.entry.diamond_id, x.entry.action])) : null;
  for (const e of events) {
    if (e.eventType !== 'diamond.upserted' || e.payload === null) {
      outbox.push(e);
      continue;
    }
    const envelope = e.payload as EventEnvelope<DiamondV1>;
    const record = envelope.data;
    const recordJson = e.dataText ?? JSON.stringify(record);
    outbox.push(e.payloadText === undefined ? { ...e, payloadText: envelopeJson(envelope, recordJson) } : e);
    const row = rowOf ? rowOf.get(record.diamond_id) : rows[0];
    if (!row) continue;
    const action = (actionOf ? actionOf.get(record.diamond_id) : entries[0]?.entry.action) ?? 'record_updated';
    notices.push(
      ...eventsWithText(
        [row.holder_id, row.uploader_id],
        ParticipantEventTypes.DIAMOND_UPDATED,
        record.diamond_id,
        withAction(action, record, recordJson),
        new Date(envelope.occurred_at),
      ),
    );
  }
  return { notices, outbox };
}

/**
 * `JSON.stringify({ action, ...record })` from the record's text: `action` first, then the record's members in their
 * order. A record with a member of that name, or with an index-like name (those come first in any object), is written
 * whole; a DiamondV1 has neither.
 */
function withAction(action: CustodyAction, record: DiamondV1, recordJson: string): string {
  if (recordJson === '{}' || Object.prototype.hasOwnProperty.call(record, 'action') || /^\{"(?:0|[1-9]\d*)"/.test(recordJson)) {
    return JSON.stringify({ action, ...record });
  }
  return `{"action":${JSON.stringify(action)},${recordJson.slice(1)}`;
}

/**
 * The CTEs that write `events` (parameters from `firstParam` on, always 6: one per column, so the statement is the
 * same for any number of events): `pe` inserts the events, `pd` a delivery per matching enabled webhook, its id a
 * UUIDv7 made by PostgreSQL (`dtp_uuid_v7()`, migration 1765418400000: ordered by time, as newEventId's). The
 * events' data, JSON texts already, travel as one JSON array (jsonArrayText: nothing for the driver to escape).
 */
export function participantEventsCtes(events: ParticipantEventWrite[], firstParam: number): { sql: string; values: unknown[] } {
  const p = (k: number) => `$${firstParam + k}`;
  return {
    sql:
      `pe AS (INSERT INTO participant_events (event_id, participant_id, type, subject, time, data) ` +
      `SELECT * FROM unnest(${p(0)}::uuid[], ${p(1)}::text[], ${p(2)}::text[], ${p(3)}::text[], ${p(4)}::timestamptz[], ` +
      `${jsonElements(p(5), 'json')}) ` +
      `RETURNING seq, event_id, participant_id, type, subject), ` +
      `pd AS (INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, event_id, type, subject) ` +
      `SELECT dtp_uuid_v7(), w.webhook_id, pe.seq, pe.event_id, pe.type, pe.subject FROM pe JOIN webhooks w ` +
      `ON w.participant_id = pe.participant_id AND w.enabled AND (w.event_types IS NULL OR pe.type = ANY (w.event_types)))`,
    values: [
      events.map((e) => e.event_id),
      events.map((e) => e.participant_id),
      events.map((e) => e.type),
      events.map((e) => e.subject),
      events.map((e) => e.time.toISOString()),
      jsonArrayText(events.map((e) => e.data)),
    ],
  };
}

/** Writes `events` (and their deliveries) in the caller's transaction, as one statement of its own. */
export async function writeParticipantEvents(sql: Sql, events: ParticipantEventWrite[]): Promise<void> {
  if (events.length === 0) return;
  const c = participantEventsCtes(events, 1);
  await sql.exec(`WITH ${c.sql} SELECT 1`, c.values);
}
