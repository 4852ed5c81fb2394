import { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@dtp/events';

export class Outbox1763769600000 implements MigrationInterface {
  name = 'Outbox1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q);
  }
}
