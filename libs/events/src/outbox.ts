import type { EntityManager, QueryRunner } from 'typeorm';
import { activeTraceparent } from './tracing';

/**
 * The transactional outbox: every producing service has this table in its own database and writes its events
 * there in the same transaction as the change. A statement trigger NOTIFYs the relay on commit.
 */
export const OUTBOX_CHANNEL = 'dtp_outbox';

export async function createOutboxTable(q: QueryRunner): Promise<void> {
  await q.query(`
    CREATE TABLE outbox (
      id bigserial PRIMARY KEY,
      topic text NOT NULL,
      key text NOT NULL,
      event_type text NOT NULL,
      revision bigint NOT NULL,
      payload jsonb,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      published_at timestamptz
    )`);
  await q.query(`CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL`);
  await q.query(`
    CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('${OUTBOX_CHANNEL}', ''); RETURN NULL; END $$`);
  await q.query(`CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()`);
}

/**
 * The payload is stored as `json`, not `jsonb`: jsonb reorders an object's keys (shortest first), and the event
 * would reach consumers (and search's callers) with DiamondV1's members shuffled. Nothing queries inside it.
 */
export async function outboxPayloadAsJson(q: QueryRunner): Promise<void> {
  await q.query(`ALTER TABLE outbox ALTER COLUMN payload TYPE json USING payload::json`);
}

export async function outboxPayloadAsJsonb(q: QueryRunner): Promise<void> {
  await q.query(`ALTER TABLE outbox ALTER COLUMN payload TYPE jsonb USING payload::jsonb`);
}

/**
 * The W3C `traceparent` of the request that wrote the row (null without tracing): the relay continues that trace
 * when it publishes, so one trace runs from the HTTP request through Kafka into the consumers.
 */
export async function addOutboxTraceparent(q: QueryRunner): Promise<void> {
  await q.query(`ALTER TABLE outbox ADD COLUMN traceparent text`);
}

export async function dropOutboxTraceparent(q: QueryRunner): Promise<void> {
  await q.query(`ALTER TABLE outbox DROP COLUMN IF EXISTS traceparent`);
}

export async function dropOutboxTable(q: QueryRunner): Promise<void> {
  await q.query(`DROP TABLE IF EXISTS outbox`);
  await q.query(`DROP FUNCTION IF EXISTS outbox_notify()`);
}

export interface OutboxEvent {
  topic: string;
  key: string;
  eventType: string;
  revision: number;
  /** The envelope to publish; null publishes a tombstone for `key`. */
  payload: unknown | null;
  /** `JSON.stringify(payload)`, when the caller has written it already (it is stored as it is). */
  payloadText?: string;
  /** `JSON.stringify(payload.data)`, when the caller wrote it for `payloadText` (for others that write the data too). */
  dataText?: string;
  /**
   * The W3C `traceparent` of the request that made the event, when it was taken earlier (a write batched with
   * others' runs outside its request's context); absent: the context active when the row is written.
   */
  traceparent?: string | null;
}

/**
 * Anything that runs a parameterised query inside the caller's transaction: a TypeORM EntityManager, or a
 * small adapter over a `pg` client.
 */
export interface OutboxQueryable {
  query(query: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The outbox INSERT for `events` as SQL text plus its values, numbering parameters from `$firstParam`, so a
 * caller can embed it in a larger statement (e.g. `WITH d AS (INSERT ...) <outbox insert> ...`).
 */
export function outboxInsert(events: OutboxEvent[], firstParam = 1): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  let active: string | null | undefined;
  const rows = events.map((e, i) => {
    const traceparent = e.traceparent !== undefined ? e.traceparent : active === undefined ? (active = activeTraceparent()) : active;
    values.push(e.topic, e.key, e.eventType, e.revision, e.payload === null ? null : (e.payloadText ?? JSON.stringify(e.payload)), traceparent);
    const o = firstParam - 1 + i * 6;
    return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}::bigint, $${o + 5}::json, $${o + 6}::text)`;
  });
  return { sql: `INSERT INTO outbox (topic, key, event_type, revision, payload, traceparent) VALUES ${rows.join(', ')}`, values };
}

/** Appends events to the outbox inside the caller's transaction (pass the transaction's manager). */
export async function writeOutbox(manager: EntityManager | OutboxQueryable, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const { sql, values } = outboxInsert(events);
  await manager.query(sql, values);
}
