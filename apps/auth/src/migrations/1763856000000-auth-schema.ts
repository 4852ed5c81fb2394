import { MigrationInterface, QueryRunner } from 'typeorm';

/** Participants, their client credentials (hashed secrets) and the token signing keys. */
export class AuthSchema1763856000000 implements MigrationInterface {
  name = 'AuthSchema1763856000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE participants (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('producer', 'manufacturer', 'retailer', 'grading_lab', 'non_participant')),
        provenance jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE clients (
        client_id text PRIMARY KEY,
        participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX clients_participant ON clients (participant_id)`);
    await q.query(`
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        alg text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_jwk text,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        active boolean GENERATED ALWAYS AS (retired_at IS NULL) STORED
      )`);
    await q.query(`CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys ((true)) WHERE retired_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS signing_keys`);
    await q.query(`DROP TABLE IF EXISTS clients`);
    await q.query(`DROP TABLE IF EXISTS participants`);
  }
}
