import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';

describe('platform migrations', () => {
  it('apply on an empty database, undo completely with their down, and apply again', async () => {
    const url = await createTestDatabase('platform_migrations');
    const opts = { url, service: 'platform', entities: platformEntities, migrations: platformMigrations };
    expect(await runMigrations(opts)).toHaveLength(platformMigrations.length);
    const ds = createDataSource(opts);
    await ds.initialize();
    try {
      const tables = async () =>
        (await ds.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1`)).map(
          (r: { tablename: string }) => r.tablename,
        );
      expect(await tables()).toEqual([
        'consumer_state',
        'custody_checkpoints',
        'custody_entries',
        'custody_signing_keys',
        'diamond_shares',
        'diamonds',
        'graded_measurements',
        'idempotency_keys',
        'outbox',
        'parked_events',
        'participant_events',
        'participant_storage',
        'participants',
        'shipment_diamonds',
        'shipments',
        'webhook_deliveries',
        'webhooks',
      ]);
      const triggers = await ds.query(`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal`);
      expect(triggers).toEqual([]);
      const functions = async () =>
        (await ds.query(`SELECT proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`)).map((r: { proname: string }) => r.proname);
      expect(await functions()).toEqual(['dtp_uuid_v7', 'outbox_notify']);
      for (let i = 0; i < platformMigrations.length; i++) await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables()).toEqual([]);
      expect(await functions()).toEqual([]);
    } finally {
      await ds.destroy();
    }
    expect(await runMigrations(opts)).toHaveLength(platformMigrations.length);
  });
});
