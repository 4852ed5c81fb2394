import { DataSource } from 'typeorm';
import { createDataSource, postgresOptions, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';

const TABLES = [
  'custody_checkpoints',
  'custody_entries',
  'custody_signing_keys',
  'diamond_shares',
  'diamonds',
  'graded_measurements',
  'participant_events',
  'participant_storage',
  'participants',
  'shipment_diamonds',
  'shipments',
  'webhook_deliveries',
  'webhooks',
];

/** The catalog of the entities' tables: columns (type, nullability, default), constraints and indexes with their definitions. */
async function catalog(ds: DataSource): Promise<unknown> {
  // TypeORM writes a number default of a bigint or numeric column quoted ('0'::bigint): the same value as 0.
  const columns = await ds.query(
    `SELECT table_name, column_name, data_type, is_nullable, regexp_replace(column_default, '^''(-?[0-9.]+)''::(bigint|numeric)$', '\\1') AS column_default
       FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ANY($1) ORDER BY table_name, column_name`,
    [TABLES],
  );
  const constraints = await ds.query(
    `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
      WHERE conrelid::regclass::text = ANY($1) ORDER BY 1, 2`,
    [TABLES],
  );
  const indexes = await ds.query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1) ORDER BY 1, 2`, [
    TABLES,
  ]);
  return { columns, constraints, indexes };
}

/**
 * The entities are declarations of the schema the migrations make, not a second source of it (`synchronize`
 * stays off in the services).
 */
describe('platform entities', () => {
  it('match the migrated schema exactly: the schema builder has no up-queries', async () => {
    const url = await createTestDatabase('platform_entities');
    const opts = { url, service: 'platform', entities: platformEntities, migrations: platformMigrations };
    await runMigrations(opts);
    const ds = createDataSource(opts);
    await ds.initialize();
    try {
      expect(ds.entityMetadatas.map((m) => m.tableName).sort()).toEqual(TABLES);
      const log = await ds.driver.createSchemaBuilder().log();
      expect(log.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });

  // The schema builder compares checks by name and indexes by columns only: a database made from the entities alone
  // (synchronize, on a throw-away database) must have the very catalog the migrations make, expressions included.
  it('make, on their own, the catalog the migrations make (check expressions, partial indexes, defaults)', async () => {
    const migratedUrl = await createTestDatabase('platform_entities_migrated');
    const opts = { url: migratedUrl, service: 'platform', entities: platformEntities, migrations: platformMigrations };
    await runMigrations(opts);
    const migrated = createDataSource(opts);
    const synced = new DataSource({
      ...postgresOptions({ ...opts, url: await createTestDatabase('platform_entities_synced'), migrations: [] }),
      synchronize: true,
    });
    await Promise.all([migrated.initialize(), synced.initialize()]);
    try {
      expect(await catalog(synced)).toEqual(await catalog(migrated));
    } finally {
      await Promise.all([migrated.destroy(), synced.destroy()]);
    }
  });
});
