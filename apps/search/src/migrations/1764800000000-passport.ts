import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The passport's read model (DESIGN.md "Provenance": passport): the share links platform published
 * (platform.shares.v1; a revoked link keeps its row with `revoked_at`) and the public names of participants
 * (participant.onboarded on auth.participants.v1: name, role, provenance name and country) to show on the page
 * instead of ids.
 */
export class Passport1764800000000 implements MigrationInterface {
  name = 'Passport1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE search_shares (
        share_id text PRIMARY KEY,
        diamond_id text NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        revision integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE search_participants (
        participant_id text PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL,
        provenance_name text,
        provenance_country text,
        revision integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS search_participants`);
    await q.query(`DROP TABLE IF EXISTS search_shares`);
  }
}
