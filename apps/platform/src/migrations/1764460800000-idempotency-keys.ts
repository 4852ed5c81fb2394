import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIdempotencyTable, dropIdempotencyTable } from '@dtp/database';

/** idempotency_keys: the first answer per (participant, Idempotency-Key) for 24 hours (IdempotencyModule). */
export class IdempotencyKeys1764460800000 implements MigrationInterface {
  name = 'IdempotencyKeys1764460800000';

  async up(q: QueryRunner): Promise<void> {
    await createIdempotencyTable(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIdempotencyTable(q);
  }
}
