import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConsumerTables, dropConsumerTables } from '@dtp/events';

/**
 * The search read model: the current DiamondV1 of every diamond (event-carried state from platform.diamonds.v1),
 * a deletion marker (record NULL, revision kept) so a late older upsert cannot resurrect a deleted diamond, the
 * file index, and the consumer tables (progress per key, parked events).
 */
export class SearchReadModel1763900000000 implements MigrationInterface {
  name = 'SearchReadModel1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await createConsumerTables(q);
    await q.query(`
      CREATE TABLE search_diamonds (
        diamond_id text PRIMARY KEY,
        revision bigint NOT NULL,
        version_id text,
        parent_id text,
        record jsonb,
        deleted_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT search_diamonds_record_or_deleted CHECK ((record IS NULL) = (deleted_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX search_diamonds_parent ON search_diamonds (parent_id) WHERE parent_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE search_files (
        diamond_id text NOT NULL REFERENCES search_diamonds (diamond_id) ON DELETE CASCADE,
        hash text NOT NULL,
        content_type text,
        filename text,
        size bigint,
        PRIMARY KEY (diamond_id, hash)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS search_files`);
    await q.query(`DROP TABLE IF EXISTS search_diamonds`);
    await dropConsumerTables(q);
  }
}
