import type { QueryRunner } from 'typeorm';

/**
 * The consumer side's own tables, created by each consuming service in its own migrations:
 * - `consumer_state`: the newest revision this database holds per (consumer, topic, key); an event applies only
 *   when its revision is newer, in the same transaction as its effect (idempotent consumers, DESIGN.md "Events").
 * - `parked_events`: messages that could not be applied (invalid payload, a rule the handler refuses, repeated
 *   failures), kept with the reason so an operator can inspect and replay them; the partition moves on.
 */
export async function createConsumerTables(q: QueryRunner): Promise<void> {
  await q.query(`
    CREATE TABLE consumer_state (
      consumer text NOT NULL,
      topic text NOT NULL,
      key text NOT NULL,
      revision bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (consumer, topic, key)
    )`);
  await q.query(`
    CREATE TABLE parked_events (
      id bigserial PRIMARY KEY,
      consumer text NOT NULL,
      topic text NOT NULL,
      key text NOT NULL,
      partition integer NOT NULL,
      "offset" text NOT NULL,
      payload jsonb,
      raw text,
      reason text NOT NULL,
      parked_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await q.query(`CREATE INDEX parked_events_key ON parked_events (consumer, topic, key)`);
}

export async function dropConsumerTables(q: QueryRunner): Promise<void> {
  await q.query(`DROP TABLE IF EXISTS parked_events`);
  await q.query(`DROP TABLE IF EXISTS consumer_state`);
}
