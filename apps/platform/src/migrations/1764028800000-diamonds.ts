import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Diamonds, their graded measurements and what platform knows about participants (from auth.participants.v1).
 * Queried fields are columns; record sections the API returns as a whole (rough, polished with its file refs,
 * provenance, tags) are JSONB.
 */
export class Diamonds1764028800000 implements MigrationInterface {
  name = 'Diamonds1764028800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE participants (
        participant_id text PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL,
        provenance jsonb,
        base_url text,
        revision bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE diamonds (
        diamond_id text PRIMARY KEY CHECK (diamond_id ~ '^[a-z0-9]{20,98}$'),
        legacy_id uuid NOT NULL UNIQUE,
        version_id text NOT NULL,
        revision bigint NOT NULL CHECK (revision >= 1),
        uploader_id text NOT NULL,
        holder_id text NOT NULL,
        producer_uuid text NOT NULL,
        box_scope text,
        box_id text,
        participant_id text,
        diamond_parent_id text REFERENCES diamonds (diamond_id),
        participant_parent_id text,
        legacy_parent_id uuid,
        lifecycle_state text NOT NULL CHECK (lifecycle_state IN ('rough', 'split', 'polished', 'destroyed')),
        current_stage text NOT NULL CHECK (current_stage IN ('rough', 'polished')),
        possession_state text NOT NULL CHECK (possession_state IN ('held', 'in_transit')),
        unlock_status text NOT NULL CHECK (unlock_status IN ('locked', 'unlocked')),
        assurance_level text NOT NULL CHECK (assurance_level IN ('assured', 'declared')),
        rough_check boolean NOT NULL DEFAULT false,
        provenance_pending boolean NOT NULL DEFAULT false,
        box_description text,
        sight_no bigint,
        sight_year bigint,
        participant_timestamp text NOT NULL,
        system_timestamp timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        archived_at timestamptz,
        gis_status text,
        three_d_plan_available boolean NOT NULL DEFAULT false,
        verification_status text NOT NULL DEFAULT 'Verified',
        verification_description text NOT NULL DEFAULT 'verified record',
        verification_status_modified_at timestamptz,
        rough jsonb NOT NULL,
        polished jsonb NOT NULL,
        provenance jsonb NOT NULL,
        entity_specific_tags jsonb,
        supplementary_tags jsonb,
        data_requests jsonb NOT NULL DEFAULT '[]',
        rough_objective_verification_results jsonb NOT NULL DEFAULT '[]',
        polished_objective_verification_results jsonb NOT NULL DEFAULT '[]'
      )`);
    // participant_id is unique within the box it is registered against; box_scope is whose box it is (the
    // registering participant for its own boxes, the shipment for shipments). NULLs (no box) never collide.
    await q.query(`CREATE UNIQUE INDEX diamonds_box_participant_id ON diamonds (box_scope, box_id, participant_id)`);
    await q.query(`CREATE INDEX diamonds_parent ON diamonds (diamond_parent_id) WHERE diamond_parent_id IS NOT NULL`);
    await q.query(`CREATE INDEX diamonds_holder ON diamonds (holder_id)`);
    await q.query(`CREATE INDEX diamonds_uploader ON diamonds (uploader_id)`);
    await q.query(`CREATE INDEX diamonds_provenance_pending ON diamonds (uploader_id) WHERE provenance_pending`);
    await q.query(`
      CREATE TABLE graded_measurements (
        id text PRIMARY KEY,
        diamond_id text NOT NULL REFERENCES diamonds (diamond_id) ON DELETE CASCADE,
        source text NOT NULL CHECK (source IN ('gis', 'user')),
        is_active boolean NOT NULL DEFAULT false,
        is_selectable boolean NOT NULL DEFAULT true,
        data jsonb NOT NULL,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // At most one active record per diamond, whatever the interleaving of selects.
    await q.query(`CREATE UNIQUE INDEX graded_measurements_one_active ON graded_measurements (diamond_id) WHERE is_active`);
    await q.query(`CREATE INDEX graded_measurements_diamond ON graded_measurements (diamond_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS graded_measurements`);
    await q.query(`DROP TABLE IF EXISTS diamonds`);
    await q.query(`DROP TABLE IF EXISTS participants`);
  }
}
