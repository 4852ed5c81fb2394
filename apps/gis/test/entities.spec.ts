import { DataSource } from 'typeorm';
import { createDataSource, entityColumns, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { gisEntities } from '../src/entities';
import { gisMigrations } from '../src/migrations';

/**
 * The entities are the one description of gis's tables in code (the migrations are their history): every property
 * is named after its column (snake_case, as in every service), so a raw-SQL row is an entity as it is, and every
 * column of each entity's table is declared with the type the migrations gave it.
 */
describe('gis entities', () => {
  let ds: DataSource;
  beforeAll(async () => {
    const opts = { url: await createTestDatabase('gis_entities'), service: 'gis', entities: gisEntities, migrations: gisMigrations };
    await runMigrations(opts);
    ds = createDataSource(opts);
    await ds.initialize();
  });
  afterAll(() => ds?.destroy());

  it('name every property after its column', () => {
    for (const entity of gisEntities as (new () => object)[]) {
      for (const c of entityColumns(entity)) expect(`${entity.name}.${c.property}`).toBe(`${entity.name}.${c.name}`);
    }
  });

  it("declare exactly their table's migrated columns, with the migrated types", async () => {
    for (const meta of ds.entityMetadatas) {
      const rows: { column_name: string; udt_name: string }[] = await ds.query(
        `SELECT column_name, udt_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY column_name`,
        [meta.tableName],
      );
      const declared = meta.columns.map((c) => [c.databaseName, String(c.type)]).sort(([a], [b]) => a.localeCompare(b));
      const udt: Record<string, string> = { int4: 'integer', int8: 'bigint', bool: 'boolean' };
      expect({ table: meta.tableName, columns: declared }).toEqual({
        table: meta.tableName,
        columns: rows.map((r) => [r.column_name, udt[r.udt_name] ?? r.udt_name]),
      });
    }
  });

  it('the schema builder finds no column to add, drop or rename (defaults are left to the migrations)', async () => {
    const log = await ds.driver.createSchemaBuilder().log();
    const columnChanges = log.upQueries.map((q) => q.query).filter((q) => /ADD COLUMN|DROP COLUMN|RENAME COLUMN/.test(q));
    expect(columnChanges).toEqual([]);
  });
});
