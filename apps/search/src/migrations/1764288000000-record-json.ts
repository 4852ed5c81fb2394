import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The read model keeps each record as `json`: jsonb reorders an object's keys (shortest first), and search would
 * answer with DiamondV1's members shuffled. Nothing queries inside the record.
 */
export class RecordJson1764288000000 implements MigrationInterface {
  name = 'RecordJson1764288000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE search_diamonds ALTER COLUMN record TYPE json USING record::json`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE search_diamonds ALTER COLUMN record TYPE jsonb USING record::jsonb`);
  }
}
