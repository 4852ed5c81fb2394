import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Legacy mutual TLS (DESIGN.md "Legacy integrations: mutual TLS"): when each participant's integration started
 * (existing participants: their onboarding time) and the client certificates registered for legacy participants.
 * A thumbprint is registered at most once among the certificates not removed.
 */
export class ClientCertificates1764892800000 implements MigrationInterface {
  name = 'ClientCertificates1764892800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE participants ADD COLUMN integration_started_at timestamptz`);
    await q.query(`UPDATE participants SET integration_started_at = created_at`);
    await q.query(`ALTER TABLE participants ALTER COLUMN integration_started_at SET NOT NULL, ALTER COLUMN integration_started_at SET DEFAULT now()`);
    await q.query(`
      CREATE TABLE client_certificates (
        certificate_id uuid PRIMARY KEY,
        participant_id uuid NOT NULL REFERENCES participants (id) ON DELETE CASCADE,
        x5t_s256 text NOT NULL,
        subject text NOT NULL,
        not_after timestamptz NOT NULL,
        certificate_pem text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        removed_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX client_certificates_registered_x5t ON client_certificates (x5t_s256) WHERE removed_at IS NULL`);
    await q.query(`CREATE INDEX client_certificates_participant ON client_certificates (participant_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS client_certificates`);
    await q.query(`ALTER TABLE participants DROP COLUMN IF EXISTS integration_started_at`);
  }
}
