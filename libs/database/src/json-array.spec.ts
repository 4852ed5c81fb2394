import { Client } from 'pg';
import { testServerUrl } from '@dtp/testing';
import { withDatabase } from './data-source';
import { jsonArrayText, jsonElements } from './json-array';

describe('jsonArrayText and jsonElements (real PostgreSQL)', () => {
  let db: Client;
  beforeAll(async () => {
    db = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  // Texts an escaping bug would change: quotes, backslashes, escapes, JSON punctuation inside strings, non-ASCII,
  // a lone-surrogate escape, key orders jsonb would sort, numbers jsonb would normalise, nesting.
  const values: unknown[] = [
    { z: 1, a: 'a"b\\c', note: 'line\nbreak\ttab "q" [x], {y}' },
    { nested: [[1, 2.5, -0.0001, 1e21], { s: 'é ₹ 😀' }], empty: {}, list: [] },
    'a bare "string"',
    42,
    [],
  ];
  const texts = values.map((v) => JSON.stringify(v));

  it('gives json elements back as the texts sent, in their order, with their positions', async () => {
    // json also keeps what jsonb refuses: \u0000 and a lone surrogate, escaped.
    const texts = [...values, { s: '\u0000 \ud800' }].map((v) => JSON.stringify(v));
    const { rows } = await db.query<{ t: string; k: string; n: string }>(
      `SELECT x::text AS t, k, n::text FROM unnest($1::text[], ${jsonElements('$2', 'json')}) WITH ORDINALITY AS u(k, x, n)`,
      [texts.map((_, i) => `k${i}`), jsonArrayText(texts)],
    );
    expect(rows).toEqual(texts.map((t, i) => ({ t, k: `k${i}`, n: String(i + 1) })));
  });

  it('gives jsonb elements equal to the values sent, in their order', async () => {
    const { rows } = await db.query<{ v: unknown }>(`SELECT v FROM unnest(${jsonElements('$1', 'jsonb')}) AS u(v)`, [jsonArrayText(texts)]);
    expect(rows.map((r) => r.v)).toEqual(values.map((v) => JSON.parse(JSON.stringify(v))));
  });

  it('gives SQL NULL for null, for both types, and an empty array for no texts', async () => {
    for (const type of ['json', 'jsonb'] as const) {
      const { rows } = await db.query<{ isnull: boolean }>(`SELECT v IS NULL AS isnull FROM unnest(${jsonElements('$1', type)}) AS u(v)`, [
        jsonArrayText(['{"a":1}', null, 'null', '[null]']),
      ]);
      expect([type, rows.map((r) => r.isnull)]).toEqual([type, [false, true, true, false]]);
      const none = await db.query(`SELECT cardinality(${jsonElements('$1', type)}) AS n`, [jsonArrayText([])]);
      expect(none.rows[0].n).toBe(0);
    }
  });

  it('writes the texts one after another, nothing escaped', () => {
    expect(jsonArrayText(['{"a":"\\""}', null, '1'])).toBe('[{"a":"\\""},null,1]');
    expect(jsonArrayText([])).toBe('[]');
  });
});
