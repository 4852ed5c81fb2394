import { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxPayloadAsJson, outboxPayloadAsJsonb } from '@dtp/events';

/** Outbox payloads as `json`, so events keep their members in the order they were written. */
export class OutboxPayloadJson1764288000000 implements MigrationInterface {
  name = 'OutboxPayloadJson1764288000000';

  async up(q: QueryRunner): Promise<void> {
    await outboxPayloadAsJson(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await outboxPayloadAsJsonb(q);
  }
}
