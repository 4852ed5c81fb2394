import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConsumerTables, dropConsumerTables } from '@dtp/events';

/** NOTIFY channel the validation worker listens on (a new job was queued). */
export const VALIDATION_CHANNEL = 'gis_validation';

/**
 * GIS's own tables: its view of diamonds (fed by platform.diamonds.v1), parsed scan reports keyed by blob
 * hash, verify attempts, validation requests (the worker's durable job table) and lab gradings; plus the
 * consumer framework's `consumer_state` / `parked_events`.
 */
export class GisSchema1764115200000 implements MigrationInterface {
  name = 'GisSchema1764115200000';

  async up(q: QueryRunner): Promise<void> {
    await createConsumerTables(q);
    await q.query(`
      CREATE TABLE gis_diamonds (
        diamond_id text PRIMARY KEY,
        revision bigint NOT NULL,
        version_id text,
        lifecycle_state text,
        current_stage text,
        unlock_status text,
        carats text,
        shape text,
        holder_participant_id text,
        scan_report_hash text,
        deleted boolean NOT NULL DEFAULT false,
        deleted_at timestamptz,
        gis_status text,
        gis_reason text,
        eligibility_revision bigint NOT NULL DEFAULT 0,
        grading_revision bigint NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX gis_diamonds_scan_report ON gis_diamonds (scan_report_hash) WHERE scan_report_hash IS NOT NULL`);
    await q.query(`
      CREATE TABLE scan_reports (
        hash text PRIMARY KEY,
        outcome text NOT NULL CHECK (outcome IN ('parsed', 'not_supported', 'missing_data', 'parse_error')),
        extracted jsonb,
        detail jsonb,
        size_bytes bigint,
        parsed_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE verify_attempts (
        id uuid PRIMARY KEY,
        diamond_id text NOT NULL,
        lab_participant_id text NOT NULL,
        lab_client_id text,
        request jsonb NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('success', 'failure', 'not_found', 'deleted', 'ineligible')),
        http_status integer NOT NULL,
        response jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX verify_attempts_diamond ON verify_attempts (diamond_id, lab_participant_id, created_at)`);
    await q.query(`
      CREATE TABLE validation_requests (
        request_id uuid PRIMARY KEY,
        diamond_id text NOT NULL,
        lab_participant_id text NOT NULL,
        request jsonb NOT NULL,
        scan_report_hash text NOT NULL,
        status text NOT NULL DEFAULT 'Pending' CHECK (status IN ('Pending', 'Verified', 'Unverifiable')),
        verification_description text,
        verification_error text,
        parameters jsonb,
        requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        answered_at timestamptz,
        answered_by text,
        claimed_by text,
        claimed_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        CHECK ((status = 'Pending') = (answered_at IS NULL))
      )`);
    await q.query(`CREATE INDEX validation_requests_pending ON validation_requests (requested_at) WHERE status = 'Pending'`);
    await q.query(`CREATE INDEX validation_requests_diamond ON validation_requests (diamond_id, lab_participant_id, requested_at)`);
    await q.query(`
      CREATE FUNCTION validation_requests_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify('${VALIDATION_CHANNEL}', ''); RETURN NULL; END $$`);
    await q.query(`
      CREATE TRIGGER validation_requests_notify AFTER INSERT ON validation_requests
      FOR EACH STATEMENT EXECUTE FUNCTION validation_requests_notify()`);
    await q.query(`
      CREATE TABLE gradings (
        grading_id uuid PRIMARY KEY,
        diamond_id text NOT NULL,
        lab_participant_id text NOT NULL,
        validation_request_id uuid NOT NULL REFERENCES validation_requests (request_id),
        revision bigint NOT NULL,
        data jsonb NOT NULL,
        submitted_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (diamond_id, revision)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS gradings`);
    await q.query(`DROP TRIGGER IF EXISTS validation_requests_notify ON validation_requests`);
    await q.query(`DROP FUNCTION IF EXISTS validation_requests_notify()`);
    await q.query(`DROP TABLE IF EXISTS validation_requests`);
    await q.query(`DROP TABLE IF EXISTS verify_attempts`);
    await q.query(`DROP TABLE IF EXISTS scan_reports`);
    await q.query(`DROP TABLE IF EXISTS gis_diamonds`);
    await dropConsumerTables(q);
  }
}
