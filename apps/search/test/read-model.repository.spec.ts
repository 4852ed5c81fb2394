import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { createDataSource, runMigrations, sqlOn, type Sql } from '@dtp/database';
import type { DiamondV1 } from '@dtp/domain';
import { createTestDatabase } from '@dtp/testing';
import { ReadModelRepository, searchDbOptions } from '../src/app';
import { diamondRecord } from './support';

const hashOf = (s: string) => createHash('sha256').update(s).digest('hex');
const image = (name: string) => ({
  hash: hashOf(name),
  filename: `${name}.jpg`,
  description: null,
  content_type: 'image/jpeg',
  size: name.length,
  uploaded_at: null,
  image_type: 'photo',
});
const withImages = (r: DiamondV1, ...names: string[]): DiamondV1 => ({ ...r, polished: { images: names.map(image) } as DiamondV1['polished'] });
/** The stored record's JSON text: key order included (the API answers with it as stored). */
const storedText = async (ds: DataSource, id: string) =>
  ((await ds.query('SELECT record::text AS t FROM search_diamonds WHERE diamond_id = $1', [id])) as { t: string }[])[0]?.t;
const hashes = async (ds: DataSource, id: string) =>
  ((await ds.query('SELECT hash FROM search_files WHERE diamond_id = $1 ORDER BY hash', [id])) as { hash: string }[]).map((r) => r.hash);

/** The read model's writes, one statement for several diamonds (upsertMany: the search consumer's batches). */
describe('ReadModelRepository.upsertMany (real PostgreSQL)', () => {
  let ds: DataSource;
  let repo: ReadModelRepository;
  /** One connection's Sql, as the consumer's unit of work has (`ctx.tx`): the statement is prepared on it. */
  let client: Client;
  let sql: Sql;

  beforeAll(async () => {
    const url = await createTestDatabase('search_upsert_many');
    await runMigrations(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 2 }));
    ds = createDataSource(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 2 }));
    await ds.initialize();
    repo = new ReadModelRepository(ds);
    client = new Client({ connectionString: url });
    await client.connect();
    sql = sqlOn(client);
  });
  afterAll(async () => {
    await client?.end();
    await ds?.destroy();
  });

  it.each([
    ['TypeORM (sent as it is)', () => undefined],
    ["a unit of work's Sql (prepared)", () => sql],
  ])('stores each record whose revision is newer, as sent (key order kept), and replaces its file index: %s', async (_, writer) => {
    // diamondRecord's keys are in an order jsonb would not keep (it sorts them by length, then bytes).
    const a = withImages(diamondRecord(), 'a-front', 'a-side');
    const b = withImages(diamondRecord({ diamond_parent_id: a.diamond_id }), 'b-front');
    const c = diamondRecord();
    expect(
      await repo.upsertMany(
        [
          { record: a, revision: 1 },
          { record: b, revision: 3 },
          { record: c, revision: 1 },
        ],
        writer(),
      ),
    ).toEqual(new Set([a.diamond_id, b.diamond_id, c.diamond_id]));
    for (const r of [a, b, c]) expect(await storedText(ds, r.diamond_id)).toBe(JSON.stringify(r));
    expect(await hashes(ds, a.diamond_id)).toEqual([hashOf('a-front'), hashOf('a-side')].sort());
    expect(await hashes(ds, b.diamond_id)).toEqual([hashOf('b-front')]);
    expect(await repo.ancestors(b.diamond_id)).toEqual([a]);

    // a: newer, one image gone and one new; b: the same revision again; c: older; d: new.
    const a2 = withImages({ ...a, version_id: 'v-a2' }, 'a-side', 'a-back');
    const b2 = withImages({ ...b, version_id: 'v-b-stale' }, 'b-other');
    const c0 = { ...c, version_id: 'v-c-older' };
    const d = diamondRecord();
    const applied = await repo.upsertMany(
      [
        { record: a2, revision: 2 },
        { record: b2, revision: 3 },
        { record: c0, revision: 0 },
        { record: d, revision: 1 },
      ],
      writer(),
    );
    expect(applied).toEqual(new Set([a.diamond_id, d.diamond_id]));
    expect(await storedText(ds, a.diamond_id)).toBe(JSON.stringify(a2));
    expect(await hashes(ds, a.diamond_id)).toEqual([hashOf('a-side'), hashOf('a-back')].sort());
    expect(await storedText(ds, b.diamond_id)).toBe(JSON.stringify(b));
    expect(await hashes(ds, b.diamond_id)).toEqual([hashOf('b-front')]);
    expect((await repo.find(c.diamond_id))?.version_id).toBe(c.version_id);
    expect(await repo.find(d.diamond_id)).toEqual(d);
    // prepared once on the Sql's connection (two calls, one statement); never on TypeORM's
    const prepared = (await client.query<{ name: string }>(`SELECT name FROM pg_prepared_statements`)).rows.map((r) => r.name);
    expect(prepared).toEqual(writer() === undefined ? [] : ['search_upsert_many']);
  });

  it('does not bring back a deleted diamond with an older revision, and does with a newer one', async () => {
    const r = withImages(diamondRecord(), 'x');
    await repo.upsertMany([{ record: r, revision: 1 }]);
    await repo.markDeleted(r.diamond_id, 4);
    expect(await repo.upsertMany([{ record: r, revision: 3 }])).toEqual(new Set());
    expect(await repo.find(r.diamond_id)).toBeNull();
    expect(await hashes(ds, r.diamond_id)).toEqual([]);
    expect(await repo.upsertMany([{ record: r, revision: 5 }])).toEqual(new Set([r.diamond_id]));
    expect(await repo.find(r.diamond_id)).toEqual(r);
    expect(await hashes(ds, r.diamond_id)).toEqual([hashOf('x')]);
  });

  it('refuses the same diamond twice in one call and does nothing with an empty one', async () => {
    const r = diamondRecord();
    await expect(
      repo.upsertMany([
        { record: r, revision: 1 },
        { record: r, revision: 2 },
      ]),
    ).rejects.toThrow(/same diamond twice/);
    expect(await repo.find(r.diamond_id)).toBeNull();
    expect(await repo.upsertMany([])).toEqual(new Set());
  });
});
