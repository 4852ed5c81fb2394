import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `search_diamonds_parent` (migration 1763900000000), which no statement of search reads. The one query that
 * follows `parent_id`, a diamond's history (`ReadModelRepository.ancestors`), goes from a child to its parent: each
 * step looks the parent up by `diamond_id`, the primary key. Nothing asks for a diamond's children. Yet every upsert
 * of a cut diamond (a parent set) wrote an entry into it: in a throw-away loop of 40,000 such upserts (16 per
 * statement, parents at random among 20,000, three runs each way) 1,149 -> 1,041 bytes of WAL and 28.3 -> 25.2 µs of
 * PostgreSQL's CPU per row. Rough diamonds (no parent) never had an entry.
 *
 * Outside a transaction: `DROP INDEX CONCURRENTLY` waits for the statements using the table instead of locking out
 * its readers and the consumer's writes. The down builds it again with a plain CREATE INDEX, which holds off writes
 * to `search_diamonds` while it reads the table (TypeORM runs every down in a transaction, where CONCURRENTLY is
 * refused).
 */
export class UnusedParentIndex1765677600000 implements MigrationInterface {
  name = 'UnusedParentIndex1765677600000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS search_diamonds_parent`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS search_diamonds_parent ON search_diamonds (parent_id) WHERE parent_id IS NOT NULL`);
  }
}
