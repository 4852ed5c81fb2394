import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `custody_entries.links` (DESIGN.md "Provenance"): on the `registered` entry of a diamond registered against an
 * accepted shipment, the sorted entry hashes of the latest entries of the shipment's diamonds at registration, so the
 * chain reaches the producer. NULL on every other entry, and on every entry written before: the hashed entry has no
 * `links` member then, so those entries keep their hashes.
 */
export class CustodyLinks1764900000000 implements MigrationInterface {
  name = 'CustodyLinks1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE custody_entries ADD COLUMN links text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE custody_entries DROP COLUMN links`);
  }
}
