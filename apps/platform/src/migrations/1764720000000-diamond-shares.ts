import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passport share links (DESIGN.md "Provenance": passport): one row per link, revoked in place (`revoked_at`), never
 * deleted, so a revocation can be told apart from an unknown link. `revision` is the outbox revision of the share's
 * last event (1 created, 2 revoked).
 */
export class DiamondShares1764720000000 implements MigrationInterface {
  name = 'DiamondShares1764720000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE diamond_shares (
        share_id text PRIMARY KEY,
        diamond_id text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        revoked_by text,
        revision integer NOT NULL DEFAULT 1
      )`);
    await q.query(`CREATE INDEX diamond_shares_diamond ON diamond_shares (diamond_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS diamond_shares`);
  }
}
