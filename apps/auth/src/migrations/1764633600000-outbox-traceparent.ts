import { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@dtp/events';

/** The W3C trace context of the request that wrote each outbox row (docs/operations.md "Tracing"). */
export class OutboxTraceparent1764633600000 implements MigrationInterface {
  name = 'OutboxTraceparent1764633600000';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q);
  }
}
