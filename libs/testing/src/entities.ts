import type { DataSource, MixedList, EntitySchema } from 'typeorm';
import { createDataSource, entityColumns, runMigrations } from '@dtp/database';
import { createTestDatabase } from './database';

/**
 * A service's entities are the one description of its tables in code (the migrations are their history): every
 * property is named after its column (snake_case, as in every service), so a raw-SQL row is an entity as it is, and
 * every column of each entity's table is declared with the type the migrations gave it. Declares that suite for
 * `service` (its own `test/entities.spec.ts` calls it). `schemaBuilder: false` leaves out the last check (TypeORM's
 * schema builder finding no column to change), which auth's entities do not pass yet.
 */
export function describeEntities(
  service: string,
  entities: MixedList<Function | string | EntitySchema>,
  migrations: Function[],
  { schemaBuilder = true }: { schemaBuilder?: boolean } = {},
): void {
  describe(`${service} entities`, () => {
    let ds: DataSource;
    beforeAll(async () => {
      const opts = { url: await createTestDatabase(`${service}_entities`), service, entities, migrations };
      await runMigrations(opts);
      ds = createDataSource(opts);
      await ds.initialize();
    });
    afterAll(() => ds?.destroy());

    it('name every property after its column', () => {
      for (const entity of entities as (new () => object)[]) {
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

    if (!schemaBuilder) return;
    it('the schema builder finds no column to add, drop or rename (defaults are left to the migrations)', async () => {
      const log = await ds.driver.createSchemaBuilder().log();
      const columnChanges = log.upQueries.map((q) => q.query).filter((q) => /ADD COLUMN|DROP COLUMN|RENAME COLUMN/.test(q));
      expect(columnChanges).toEqual([]);
    });
  });
}
