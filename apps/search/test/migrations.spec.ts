import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { ReadModelRepository, searchDbOptions } from '../src/app';
import { searchMigrations } from '../src/migrations';
import { ANCESTORS_SQL } from '../src/read-model/read-model.repository';
import { diamondRecord } from './support';

describe('search migrations (real PostgreSQL)', () => {
  it('index search_diamonds only where a statement reads it: history walks the primary key, no parent index; the down puts it back', async () => {
    const options = searchDbOptions({ DATABASE_URL: await createTestDatabase('search_parent_index'), DB_POOL_SIZE: 2 });
    expect(await runMigrations(options)).toHaveLength(searchMigrations.length);
    const ds = createDataSource(options);
    await ds.initialize();
    try {
      const indexes = async () =>
        (await ds.query(
          `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'search_diamonds'::regclass ORDER BY 1`,
        )) as { name: string; valid: boolean }[];
      const kept = ['search_diamonds_lookup_certificate', 'search_diamonds_lookup_inscriptions', 'search_diamonds_lookup_report', 'search_diamonds_pkey'];
      expect(await indexes()).toEqual(kept.map((name) => ({ name, valid: true })));

      // 2,000 chains of three generations: a rough diamond, its polished child and that child's split
      const repo = new ReadModelRepository(ds);
      const chains = Array.from({ length: 2000 }, () => {
        const rough = diamondRecord();
        const polished = diamondRecord({ diamond_parent_id: rough.diamond_id, lifecycle_state: 'polished', current_stage: 'polished' });
        const split = diamondRecord({ diamond_parent_id: polished.diamond_id, lifecycle_state: 'polished', current_stage: 'polished' });
        return [rough, polished, split];
      });
      const all = chains.flat();
      for (let i = 0; i < all.length; i += 500) await repo.upsertMany(all.slice(i, i + 500).map((record) => ({ record, revision: 1 })));
      await ds.query('ANALYZE search_diamonds');

      const [rough, polished, split] = chains[1234];
      expect(await repo.ancestors(split.diamond_id)).toEqual([polished, rough]);
      // each step of the history is a look-up of the parent by its diamond_id, never a read of the whole table
      const [{ 'QUERY PLAN': plan }] = (await ds.query(`EXPLAIN (FORMAT JSON) ${ANCESTORS_SQL}`, [split.diamond_id])) as { 'QUERY PLAN': unknown }[];
      const text = JSON.stringify(plan);
      expect(text).toContain('"Index Name":"search_diamonds_pkey"');
      expect(text).not.toContain('"Seq Scan"');
      expect(text).not.toContain('search_diamonds_parent');

      await ds.undoLastMigration({ transaction: 'each' });
      expect(await indexes()).toEqual([...kept, 'search_diamonds_parent'].sort().map((name) => ({ name, valid: true })));
      expect(await repo.ancestors(split.diamond_id)).toEqual([polished, rough]);
    } finally {
      await ds.destroy();
    }
  });
});
