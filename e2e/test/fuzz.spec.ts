import fc from 'fast-check';
import { VALIDATE_JSON_EXAMPLE, VERIFY_REQUEST_EXAMPLE } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { HOSTILE_PATH_SEGMENTS, participantWithToken, ParticipantWithToken, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';

/**
 * Property-based fuzzing of every operation of the four services, generated from each service's own OpenAPI
 * document (`/docs/json`): hostile path values, hostile query values, and bodies that are a realistic sample with
 * one member replaced by a hostile value (or replaced whole). Whatever comes in, the answer is never a 5xx, and
 * every 4xx is a JSON object. Fixed seed and a bounded count per operation, so the run is the same everywhere.
 */
const SEED = 20261122;
const RUNS_PER_OPERATION = 25;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Operation {
  service: 'auth' | 'platform' | 'search' | 'gis';
  method: string;
  path: string;
}

/** One realistic body per operation (the spec's examples, trimmed), mutated by the fuzzer. */
const SAMPLES: Record<string, Json> = {
  'POST /oauth/token': { grant_type: 'client_credentials', client_id: 'c', client_secret: 's', audience: TEST_AUDIENCES.platform },
  'POST /admin/participants': { name: 'Fuzz Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } },
  'POST /diamonds/rough/create': {
    box_id: 'BOX-F',
    participant_id: 'F-1',
    participant_timestamp: '2024-05-01T10:00:00Z',
    rough: { carats: '1.25', colour: 'G', model: 'M' },
    supplementary_tags: { a: 1 },
  },
  'POST /diamonds/polished/create': {
    parent_diamond_id: '01hzzzzzzzzzzzzzzzzzzzzzzz',
    participant_id: 'P-1',
    participant_timestamp: '2024-05-01T10:00:00Z',
    polished: { carats: '0.5', shape: 'Round' },
  },
  'POST /diamonds/{diamond_id}/split': {
    cuts: [
      { participant_id: 'C1', rough: { carats: 0.1 } },
      { participant_id: 'C2', rough: { carats: 0.1 } },
    ],
  },
  'POST /diamonds/{diamond_id}/destroy': { participant_timestamp: '2024-05-01T10:00:00Z' },
  'POST /diamonds/{diamond_id}/graded-measurements': { carats: 1.01, shape: 'Round', colour: 'D', clarity: 'VS1', grading_lab: 'GIA' },
  'POST /bulk/diamonds/delete': { diamonds: [{ diamond_id: '01hzzzzzzzzzzzzzzzzzzzzzzz', delete_descendants: false }] },
  'POST /v2/transfer/out': {
    recipient_participant_id: '00000000-0000-4000-8000-000000000000',
    name: 'S',
    shipment_type: 'rough',
    diamond_ids: ['01hzzzzzzzzzzzzzzzzzzzzzzz'],
  },
  'POST /v2/transfer/in/{shipment_id}/accept': { diamond_ids: ['01hzzzzzzzzzzzzzzzzzzzzzzz'] },
  'POST /transfer/in/{shipment_id}/reject': { diamond_ids: ['01hzzzzzzzzzzzzzzzzzzzzzzz'] },
  'POST /v2/transfer/in/{shipment_id}/reject': { diamond_ids: ['01hzzzzzzzzzzzzzzzzzzzzzzz'] },
  'POST /v2/diamonds/{diamond_id}/verify': { ...VERIFY_REQUEST_EXAMPLE },
  'POST /v2/diamonds/{diamond_id}/validate-json': { ...VALIDATE_JSON_EXAMPLE },
  'POST /v2/diamonds/{diamond_id}/grading': {
    grader_certificate_number: 'C-1',
    grader_report_number: 'R-1',
    grader_inscription_numbers: ['GIA 1'],
    grading_lab: 'GIA',
    graded_date: '2025-03-04T10:00:00Z',
    carats: 1.02,
    shape: 'Round',
    colour: 'E',
    clarity: 'VS1',
    cut_grade: 'EX',
  },
};

/** Values nobody should send, each of which has once been (or could be) a 5xx somewhere. */
function hostileValue(): fc.Arbitrary<Json> {
  const deep = (depth: number, leaf: Json): Json => {
    let v: Json = leaf;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  return fc.oneof(
    fc.constantFrom<Json>(
      null,
      '',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udc00y',
      '\u202e\u0007',
      "' OR 1=1 --",
      '../../etc/passwd',
      'x'.repeat(5000),
      -1,
      0,
      1e308,
      -1e308,
      5e-324,
      Number.MAX_SAFE_INTEGER + 2,
      '1e400',
      '0.0000000000000000000000000000001',
      '9'.repeat(400),
      true,
      [],
      {},
      Array.from({ length: 2000 }, (_, i) => i),
      deep(40, 1),
      deep(3000, 'x'),
      { __proto__: { polluted: true } } as unknown as Json,
      { constructor: { prototype: { polluted: true } } },
    ),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.double(),
    fc.integer(),
    fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  );
}

/** Every path to a member of `value` (objects and arrays), the root included as []. */
function memberPaths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...memberPaths(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...memberPaths(v, [...prefix, k]));
  return out;
}

function replaceAt(value: Json, path: (string | number)[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, Json>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, Json>;
  node[path[path.length - 1]] = replacement;
  return copy as Json;
}

/** A body: the sample with one member replaced, an unknown member added, or something else entirely. */
function bodyFor(sample: Json | undefined): fc.Arbitrary<{ kind: 'json'; body: Json } | { kind: 'raw'; body: string; type: string }> {
  const base = sample ?? {};
  const paths = memberPaths(base);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...paths), hostileValue()).map(([p, v]) => ({ kind: 'json' as const, body: replaceAt(base, p, v) })),
    fc.tuple(fc.string({ unit: 'binary', maxLength: 20 }), hostileValue()).map(([k, v]) => ({
      kind: 'json' as const,
      body: base && typeof base === 'object' && !Array.isArray(base) ? { ...base, [k]: v } : base,
    })),
    fc.constantFrom(
      { kind: 'raw' as const, body: '{"a":', type: 'application/json' },
      { kind: 'raw' as const, body: '[1,2', type: 'application/json' },
      { kind: 'raw' as const, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, type: 'application/json' },
      { kind: 'raw' as const, body: '<?xml version="1.0"?><a/>', type: 'application/xml' },
      { kind: 'raw' as const, body: 'a=1&a=2&__proto__[x]=1', type: 'application/x-www-form-urlencoded' },
      { kind: 'raw' as const, body: '\u0000\u0001', type: 'text/plain' },
      { kind: 'raw' as const, body: '--x\r\n', type: 'multipart/form-data; boundary=x' },
    ),
  );
}

function pathSegment(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_PATH_SEGMENTS.map(([, s]) => s)),
    fc.constantFrom(...known),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map(encodeURIComponent),
    fc.stringMatching(/^[0-9a-z]{26}$/),
  );
}

describe('fuzz: no input gets a 5xx, every 4xx is JSON (all four services, from their OpenAPI documents)', () => {
  let stack: TestStack;
  let tokens: Record<Operation['service'], string>;
  let known: string[];
  const operations: Operation[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform', 'search', 'gis'] });
    const maker: ParticipantWithToken = await participantWithToken(stack, 'manufacturer', 'platform');
    const lab = await participantWithToken(stack, 'grading_lab', 'gis');
    const reader = await participantWithToken(stack, 'non_participant', 'search');
    tokens = { auth: `Bearer ${TEST_ADMIN_TOKEN}`, platform: maker.token, gis: lab.token, search: reader.token };
    const res = await fetch(`${stack.urls.platform}/diamonds/rough/create`, {
      method: 'POST',
      headers: { authorization: maker.token, 'content-type': 'application/json' },
      body: JSON.stringify(SAMPLES['POST /diamonds/rough/create']),
    });
    known = [((await res.json()) as { diamond_id: string }).diamond_id, 'image', '00000000-0000-4000-8000-000000000000'];
    for (const service of ['auth', 'platform', 'search', 'gis'] as const) {
      const doc = (await (await fetch(`${stack.urls[service]}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const method of Object.keys(methods)) operations.push({ service, method: method.toUpperCase(), path });
      }
    }
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('finds every operation of the four services in their OpenAPI documents', () => {
    const names = operations.map((o) => `${o.service} ${o.method} ${o.path}`);
    for (const expected of [
      'auth POST /oauth/token',
      'platform POST /diamonds/rough/create',
      'platform POST /diamonds/{diamond_id}/files/{kind}',
      'search GET /v1/diamonds/{diamond_id}/files/{file_hash}',
      'gis POST /v2/diamonds/{diamond_id}/grading',
    ]) {
      expect(names).toContain(expected);
    }
    expect(operations.length).toBeGreaterThanOrEqual(25);
  });

  it('answers every generated request below 500, with a JSON object on every 4xx', async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const params = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const arbitrary = fc.record({
        segments: fc.tuple(...params.map(() => pathSegment(known))) as fc.Arbitrary<string[]>,
        body: bodyFor(SAMPLES[`${op.method} ${op.path}`]),
        query: fc.option(
          fc.dictionary(fc.constantFrom('page', 'page_size', 'shipment_type', 'x'), fc.constantFrom('%00', '-1', '1e9', "'", '%ED%A0%80', 'polished')),
          { nil: undefined },
        ),
      });
      await fc.assert(
        fc.asyncProperty(arbitrary, async ({ segments, body, query }) => {
          let i = 0;
          let url = `${stack.urls[op.service]}${op.path.replace(/\{[^}]+\}/g, () => segments[i++])}`;
          if (query)
            url += `?${Object.entries(query)
              .map(([k, v]) => `${k}=${v}`)
              .join('&')}`;
          const withBody = op.method !== 'GET';
          const headers: Record<string, string> = { authorization: tokens[op.service] };
          let payload: string | undefined;
          if (withBody) {
            headers['content-type'] = body.kind === 'raw' ? body.type : 'application/json';
            payload = body.kind === 'raw' ? body.body : JSON.stringify(body.body);
          }
          const res = await fetch(url, { method: op.method, headers, body: payload });
          const text = await res.text();
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          const ok = res.status < 500 && (res.status < 400 || (typeof json === 'object' && json !== null));
          if (!ok) {
            failures.push(`${op.method} ${url.slice(0, 160)} body=${(payload ?? '').slice(0, 160)} -> ${res.status} ${text.slice(0, 200)}`);
          }
          return true;
        }),
        { seed: SEED, numRuns: RUNS_PER_OPERATION },
      );
    }
    expect(failures).toEqual([]);
  });
});
