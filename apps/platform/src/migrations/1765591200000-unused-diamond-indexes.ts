import { MigrationInterface, QueryRunner } from 'typeorm';

/** The two indexes of migration 1764028800000 that no statement of platform reads. */
const INDEXES = [
  { name: 'diamonds_holder', column: 'holder_id' },
  { name: 'diamonds_uploader', column: 'uploader_id' },
];

/**
 * Drops `diamonds_holder` and `diamonds_uploader`. Platform never looks diamonds up by holder or by uploader alone:
 * every read of `diamonds` is by `diamond_id` (or a list of them, or a parent's), the one query by uploader
 * (`pendingProvenanceOf`) reads the partial index `diamonds_provenance_pending`, and lists of a participant's
 * diamonds are search's, from its own database. Yet every registration wrote an entry into both, and every change
 * of holder moved one: 3.6 µs of PostgreSQL's CPU and 190 bytes of WAL per new diamond (a throw-away loop of 60,000
 * rows, ten per statement, 50 participants, three runs each way), and after each checkpoint a whole page of WAL for
 * every participant's page an insert touches first. The box key (`diamonds_box_participant_id`), the legacy id's
 * uniqueness and the partial indexes stay.
 *
 * Outside a transaction: `DROP INDEX CONCURRENTLY` waits for the statements using the table instead of locking out
 * its readers and writers. The down builds them again with a plain CREATE INDEX, which holds off writes to
 * `diamonds` while it reads the table (TypeORM runs every down in a transaction, where CONCURRENTLY is refused).
 */
export class UnusedDiamondIndexes1765591200000 implements MigrationInterface {
  name = 'UnusedDiamondIndexes1765591200000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const { name } of INDEXES) await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { name, column } of INDEXES) await q.query(`CREATE INDEX IF NOT EXISTS ${name} ON diamonds (${column})`);
  }
}
