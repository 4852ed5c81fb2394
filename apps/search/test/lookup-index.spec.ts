import { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '@dtp/database';
import type { DiamondV1 } from '@dtp/domain';
import { createTestDatabase } from '@dtp/testing';
import { ReadModelRepository, searchDbOptions } from '../src/app';
import { lookupQuery, sharedLookupQuery } from '../src/lookup/lookup.queries';
import { Lookup1765000000000 } from '../src/migrations/1765000000000-lookup';
import { diamondRecord } from './support';

const DIAMONDS = 100_000;

/** The plan's nodes, flattened (EXPLAIN (FORMAT JSON)). */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

const graded = (grading: Record<string, unknown> | null): DiamondV1 =>
  diamondRecord({
    current_stage: 'polished',
    lifecycle_state: 'polished',
    grading: grading ? [{ id: 'g-1', is_active: true, is_selectable: true, source: 'user', ...grading } as never] : null,
  });

/** The lookup's columns and indexes in search's database (migration Lookup1765000000000), on real PostgreSQL. */
describe('the lookup read model (real PostgreSQL)', () => {
  let ds: DataSource;
  let repo: ReadModelRepository;
  const columns = async (id: string) =>
    (
      (await ds.query(
        'SELECT lookup_report_number, lookup_grading_lab, lookup_certificate_number, lookup_inscriptions FROM search_diamonds WHERE diamond_id = $1',
        [id],
      )) as Record<string, unknown>[]
    )[0];

  beforeAll(async () => {
    const url = await createTestDatabase('search_lookup');
    await runMigrations(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 2 }));
    ds = createDataSource(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 2 }));
    await ds.initialize();
    repo = new ReadModelRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it("keeps the active grading's values lowercased, and nothing for an inactive grading, no grading or a deletion marker", async () => {
    const a = graded({
      grader_report_number: 'GIA-2141438172',
      grading_lab: 'GIA',
      grader_certificate_number: 'C-77',
      grader_inscription_numbers: ['GIA 2141438172', 'Mine X'],
    });
    const inactive = diamondRecord({ grading: [{ id: 'g', is_active: false, is_selectable: true, source: 'user', grader_report_number: 'R-1' } as never] });
    const none = diamondRecord();
    await repo.upsertMany([
      { record: a, revision: 1 },
      { record: inactive, revision: 1 },
      { record: none, revision: 1 },
    ]);
    expect(await columns(a.diamond_id)).toEqual({
      lookup_report_number: 'gia-2141438172',
      lookup_grading_lab: 'gia',
      lookup_certificate_number: 'c-77',
      lookup_inscriptions: ['gia 2141438172', 'mine x'],
    });
    const empty = { lookup_report_number: null, lookup_grading_lab: null, lookup_certificate_number: null, lookup_inscriptions: null };
    expect(await columns(inactive.diamond_id)).toEqual(empty);
    expect(await columns(none.diamond_id)).toEqual(empty);
    // A new version without the grading (deselected) clears them; a deletion marker has none.
    await repo.upsert({ ...a, grading: null }, 2);
    expect(await columns(a.diamond_id)).toEqual(empty);
    await repo.upsert(a, 3);
    await repo.markDeleted(a.diamond_id, 4);
    expect(await columns(a.diamond_id)).toEqual(empty);
  });

  it('fills the columns of the rows already there when the migration runs', async () => {
    const migration = new Lookup1765000000000();
    const runner = ds.createQueryRunner();
    try {
      await migration.down(runner);
      const before = graded({ grader_report_number: 'Old-Row-1', grading_lab: 'HRD', grader_inscription_numbers: ['HRD X1'] });
      await ds.query(`INSERT INTO search_diamonds (diamond_id, revision, version_id, record) VALUES ($1, 1, $2, $3::json)`, [
        before.diamond_id,
        before.version_id,
        JSON.stringify(before),
      ]);
      await migration.up(runner);
      expect(await columns(before.diamond_id)).toEqual({
        lookup_report_number: 'old-row-1',
        lookup_grading_lab: 'hrd',
        lookup_certificate_number: null,
        lookup_inscriptions: ['hrd x1'],
      });
    } finally {
      await runner.release();
    }
  });

  it(`answers each criterion from its index, not a scan, among ${DIAMONDS.toLocaleString('en')} diamonds (EXPLAIN)`, async () => {
    // 100,000 graded diamonds written in one statement; every tenth with a share link.
    await ds.query(
      `INSERT INTO search_diamonds (diamond_id, revision, version_id, record)
       SELECT 'lookupbench' || lpad(i::text, 12, '0'), 1, 'v' || i,
              json_build_object('diamond_id', 'lookupbench' || lpad(i::text, 12, '0'),
                'grading', json_build_array(json_build_object('id', 'g' || i, 'is_active', true, 'is_selectable', true, 'source', 'user',
                  'grader_report_number', 'R-' || i, 'grading_lab', (ARRAY['GIA','IGI','HRD'])[1 + i % 3],
                  'grader_certificate_number', 'C-' || i, 'grader_inscription_numbers', json_build_array('LAB ' || i, 'X' || i))))
       FROM generate_series(1, $1::int) AS i`,
      [DIAMONDS],
    );
    await ds.query(
      `INSERT INTO search_shares (share_id, diamond_id, revision)
       SELECT 'share' || lpad(i::text, 17, '0'), 'lookupbench' || lpad(i::text, 12, '0'), 1 FROM generate_series(10, $1::int, 10) AS i`,
      [DIAMONDS],
    );
    await ds.query('ANALYZE search_diamonds');
    await ds.query('ANALYZE search_shares');
    const plan = async ({ sql, params }: { sql: string; params: unknown[] }) => {
      const rows = (await ds.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)) as { 'QUERY PLAN': { Plan: PlanNode }[] }[];
      return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    };
    const cases: [Parameters<typeof lookupQuery>[0], string][] = [
      [{ criterion: 'grader_report_number', value: 'r-4242' }, 'search_diamonds_lookup_report'],
      [{ criterion: 'grader_report_number', value: 'R-4242', gradingLab: 'igi' }, 'search_diamonds_lookup_report'],
      [{ criterion: 'certificate_number', value: 'c-4242' }, 'search_diamonds_lookup_certificate'],
      [{ criterion: 'inscription', value: 'lab 4242' }, 'search_diamonds_lookup_inscriptions'],
    ];
    for (const [criteria, index] of cases) {
      const nodes = await plan(lookupQuery(criteria));
      const onDiamonds = nodes.filter((n) => n['Relation Name'] === 'search_diamonds' || n['Index Name']?.startsWith('search_diamonds'));
      // The criterion's index finds the matches; the primary key fetches the (at most 20) records.
      expect({
        criteria,
        indexes: onDiamonds
          .map((n) => n['Index Name'])
          .filter(Boolean)
          .sort(),
      }).toEqual({
        criteria,
        indexes: [index, 'search_diamonds_pkey'].sort(),
      });
      expect({ criteria, seqScans: nodes.filter((n) => n['Node Type'] === 'Seq Scan').length }).toEqual({ criteria, seqScans: 0 });
      // And it finds the one diamond.
      const found = (await ds.query(lookupQuery(criteria).sql, lookupQuery(criteria).params)) as { record: string }[];
      expect(found.map((r) => (JSON.parse(r.record) as { diamond_id: string }).diamond_id)).toEqual(
        criteria.gradingLab === 'igi' ? [] : ['lookupbench000000004242'],
      );
    }
    // The passport's look-up: the report number's index, then the diamond's links by their index.
    const shared = await plan(sharedLookupQuery('R-4240', null, new Date()));
    expect(shared.map((n) => n['Index Name']).filter(Boolean)).toEqual(['search_diamonds_lookup_report', 'search_shares_diamond']);
    expect(shared.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  }, 120_000);
});
