import { NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BlobStore } from '@dtp/blob-store';
import { createDataSource, runMigrations, UnitOfWork } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { ReadModelRepository, searchDbOptions } from '../src/app';
import { DiamondsService } from '../src/diamonds/diamonds.service';
import { diamondRecord } from './support';

/**
 * The read path's statement (GET /v1/diamonds/{id}) is prepared once per connection: PostgreSQL parses and plans
 * it on the first read of a connection, and every later read only binds and executes it.
 */
describe('DiamondsService.currentJson: one prepared statement per connection (real PostgreSQL)', () => {
  let ds: DataSource;
  let uow: UnitOfWork;
  let repo: ReadModelRepository;
  let diamonds: DiamondsService;

  beforeAll(async () => {
    const url = await createTestDatabase('search_current_json');
    // One connection: the reads and the look at pg_prepared_statements (per session) share it.
    await runMigrations(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 1 }));
    ds = createDataSource(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 1 }));
    await ds.initialize();
    uow = new UnitOfWork(ds);
    repo = new ReadModelRepository(ds);
    diamonds = new DiamondsService(repo, {} as BlobStore, uow);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  const prepared = () => uow.standalone.rows<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name');

  it('answers the stored text of each record, prepared once however many reads', async () => {
    expect(await prepared()).toEqual([]);
    const records = [diamondRecord(), diamondRecord(), diamondRecord()];
    for (const [i, r] of records.entries()) await repo.upsert(r, i + 1);
    for (let round = 0; round < 3; round += 1) {
      for (const r of records) expect(JSON.parse(await diamonds.currentJson(r.diamond_id))).toEqual(r);
    }
    const statements = await prepared();
    expect(statements).toHaveLength(1);
    expect(statements[0].name).toBe('search_current_json');
    expect(statements[0].statement).toContain('FROM search_diamonds WHERE diamond_id = $1');
  });

  it('answers 404 for an id it does not hold, through the same statement', async () => {
    await expect(diamonds.currentJson('00000000000000000000000000')).rejects.toBeInstanceOf(NotFoundException);
    expect((await prepared()).map((s) => s.name)).toEqual(['search_current_json']);
  });

  it('still answers after a migration alters the table under the prepared statement (PostgreSQL plans it again)', async () => {
    const r = diamondRecord();
    await repo.upsert(r, 1);
    expect(JSON.parse(await diamonds.currentJson(r.diamond_id))).toEqual(r);
    await uow.standalone.query('ALTER TABLE search_diamonds ADD COLUMN probe integer');
    expect(JSON.parse(await diamonds.currentJson(r.diamond_id))).toEqual(r);
    await uow.standalone.query('ALTER TABLE search_diamonds DROP COLUMN probe');
    expect(JSON.parse(await diamonds.currentJson(r.diamond_id))).toEqual(r);
  });
});
