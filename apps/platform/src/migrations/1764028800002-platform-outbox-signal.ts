import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform wakes its outbox relay from the application after commit (OutboxSignal of @dtp/events, through EventsModule's `wake: 'commit'`)
 * instead of the outbox table's per-statement NOTIFY trigger: a NOTIFY in every registration serialised all
 * commits behind one database-wide lock.
 */
export class PlatformOutboxSignal1764028800002 implements MigrationInterface {
  name = 'PlatformOutboxSignal1764028800002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS outbox_notify ON outbox`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()`);
  }
}
