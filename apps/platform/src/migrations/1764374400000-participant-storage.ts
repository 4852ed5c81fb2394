import { MigrationInterface, QueryRunner } from 'typeorm';

/** Bytes of files each participant has attached (the storage quota, STORAGE_QUOTA_BYTES). */
export class ParticipantStorage1764374400000 implements MigrationInterface {
  name = 'ParticipantStorage1764374400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE participant_storage (
        participant_id text PRIMARY KEY,
        bytes bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE participant_storage`);
  }
}
