import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';

/**
 * The entities are declarations of the schema the migrations make, not a second source of it (`synchronize`
 * stays off): against a migrated database TypeORM's schema builder must find nothing to create, alter or drop:
 * no column, type, nullability, default, primary key, unique constraint, check, index or foreign key differs.
 */
describe('platform entities', () => {
  it('match the migrated schema exactly (the schema builder has no up-queries)', async () => {
    const url = await createTestDatabase('platform_entities');
    const opts = { url, service: 'platform', entities: platformEntities, migrations: platformMigrations };
    await runMigrations(opts);
    const ds = createDataSource(opts);
    await ds.initialize();
    try {
      const tables = ds.entityMetadatas.map((m) => m.tableName).sort();
      expect(tables).toEqual(['diamonds', 'graded_measurements', 'participant_storage', 'participants', 'shipment_diamonds', 'shipments']);
      const log = await ds.driver.createSchemaBuilder().log();
      expect(log.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
