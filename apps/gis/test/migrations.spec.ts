import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { gisEntities } from '../src/entities';
import { gisMigrations } from '../src/migrations';

describe('gis migrations', () => {
  it('apply on an empty database and revert completely (real down)', async () => {
    const url = await createTestDatabase('gismig');
    const opts = { url, service: 'gis', entities: gisEntities, migrations: gisMigrations };
    expect(await runMigrations(opts)).toEqual([
      'Outbox1763769600000',
      'GisSchema1764115200000',
      'OutboxPayloadJson1764288000000',
      'IdempotencyKeys1764460800000',
      'OutboxTraceparent1764633600000',
    ]);
    const ds = createDataSource(opts);
    await ds.initialize();
    try {
      const tables = async () =>
        (
          (await ds.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1`)) as {
            tablename: string;
          }[]
        ).map((r) => r.tablename);
      expect(await tables()).toEqual([
        'consumer_state',
        'gis_diamonds',
        'gradings',
        'idempotency_keys',
        'outbox',
        'parked_events',
        'scan_reports',
        'validation_requests',
        'verify_attempts',
      ]);
      for (let i = 0; i < gisMigrations.length; i += 1) await ds.undoLastMigration();
      expect(await tables()).toEqual([]);
      expect(await ds.query(`SELECT proname FROM pg_proc WHERE proname IN ('validation_requests_notify', 'outbox_notify')`)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
