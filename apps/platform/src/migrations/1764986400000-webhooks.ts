import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events out to participants' systems (DESIGN.md "Events out..."; docs/webhooks.md):
 * - `participant_events`: every event a participant receives, written in the transaction of the change that causes it;
 *   the event feed (`GET /events`, in `seq` order), kept EVENT_RETENTION_DAYS;
 * - `webhooks`: subscriptions, with the signing secret (and the previous one while a rotation overlaps) and the
 *   delivery worker's lease (one worker, one delivery in flight per webhook);
 * - `webhook_deliveries`: one row per event and matching enabled webhook, written with the event; claimed by the
 *   delivery worker, retried with back-off; they go with their event when it is purged.
 */
export class Webhooks1764986400000 implements MigrationInterface {
  name = 'Webhooks1764986400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE participant_events (
        seq bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        participant_id text NOT NULL,
        type text NOT NULL,
        subject text NOT NULL,
        time timestamptz NOT NULL,
        data json NOT NULL,
        CONSTRAINT participant_events_event_id UNIQUE (event_id)
      )`);
    await q.query(`CREATE INDEX participant_events_feed ON participant_events (participant_id, seq)`);
    await q.query(`
      CREATE TABLE webhooks (
        webhook_id uuid PRIMARY KEY,
        participant_id text NOT NULL,
        url text NOT NULL,
        event_types text[],
        description text,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until timestamptz,
        created_at timestamptz NOT NULL,
        lease_until timestamptz,
        leased_by text,
        served_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhooks_participant ON webhooks (participant_id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        delivery_id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
        event_seq bigint NOT NULL REFERENCES participant_events (seq) ON DELETE CASCADE,
        event_id uuid NOT NULL,
        type text NOT NULL,
        subject text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        first_attempt_at timestamptz,
        last_status_code integer,
        last_error text,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending', 'delivered', 'failed'))
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, event_seq)`);
    await q.query(`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq)`);
    await q.query(`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, subject, event_seq) WHERE status = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhooks`);
    await q.query(`DROP TABLE IF EXISTS participant_events`);
  }
}
