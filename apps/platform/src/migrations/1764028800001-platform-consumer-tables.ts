import { MigrationInterface, QueryRunner } from 'typeorm';
import { createConsumerTables, dropConsumerTables } from '@dtp/events';

/** consumer_state and parked_events for platform's consumers (auth.participants.v1, gis.gradings.v1). */
export class PlatformConsumerTables1764028800001 implements MigrationInterface {
  name = 'PlatformConsumerTables1764028800001';

  async up(q: QueryRunner): Promise<void> {
    await createConsumerTables(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropConsumerTables(q);
  }
}
