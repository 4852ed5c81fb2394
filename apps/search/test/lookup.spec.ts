import { randomBytes, randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { DiamondV1, GradingDataView, Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TEST_AUDIENCES, TEST_ISSUER, TestStack } from '@dtp/testing';
import { deleted, diamondRecord, eventually, upserted, withDb } from './support';

/** `GET /v1/lookup` over HTTP, fed through platform.diamonds.v1 (the index itself: lookup-index.spec.ts). */
describe('GET /v1/lookup (search, non-participants)', () => {
  let stack: TestStack;
  let token: string;
  let search: string;
  /** A fresh tag per value: the tests share one read model. */
  const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex').toUpperCase()}`;

  const get = (query: string, headers: Record<string, string> = {}) => fetch(`${search}/v1/lookup?${query}`, { headers: { authorization: token, ...headers } });
  const lookup = async (query: string) => {
    const res = await get(query);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`lookup ${query}: ${res.status} ${text}`);
    return { text, ids: (JSON.parse(text) as { results: DiamondV1[] }).results.map((r) => r.diamond_id) };
  };
  const publish = (record: DiamondV1, revision: number) =>
    stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: record.diamond_id, value: upserted(record, revision) }]);
  /** Polls the lookup until it answers `ids` (search is fed by events: eventually consistent). */
  const finds = (query: string, ids: string[]) =>
    eventually(
      async () => {
        const got = await lookup(query);
        return JSON.stringify(got.ids) === JSON.stringify(ids) ? got : undefined;
      },
      `lookup ${query} -> ${JSON.stringify(ids)}`,
    );
  const grading = (members: Partial<GradingDataView>): GradingDataView => ({
    id: randomUUID(),
    is_active: true,
    is_selectable: true,
    source: 'user',
    ...members,
  });
  const graded = (members: Partial<GradingDataView>): DiamondV1 =>
    diamondRecord({ current_stage: 'polished', lifecycle_state: 'polished', grading: [grading({ carats: '1.01', shape: 'Round', ...members })] });

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'search'] });
    search = stack.urls.search!;
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('finds a diamond by its report number, exactly and in any case, answering the same DiamondV1 text as GET /v1/diamonds/{id}', async () => {
    const report = unique('gia-R');
    const d = graded({ grader_report_number: report, grading_lab: 'GIA' });
    await publish(d, 1);
    const found = await finds(`grader_report_number=${encodeURIComponent(report.toLowerCase())}`, [d.diamond_id]);
    const read = await (await fetch(`${search}/v1/diamonds/${d.diamond_id}`, { headers: { authorization: token } })).text();
    expect(found.text).toBe(`{"results":[${read}]}`);
    expect((await get(`grader_report_number=${encodeURIComponent(report)}`)).headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await lookup(`grader_report_number=${encodeURIComponent(report.toUpperCase())}`)).ids).toEqual([d.diamond_id]);
    // Exact: no prefix, no substring, no trimming.
    for (const near of [report.slice(0, -1), `${report}0`, ` ${report}`, report.slice(4)]) {
      expect({ near, ids: (await lookup(`grader_report_number=${encodeURIComponent(near)}`)).ids }).toEqual({ near, ids: [] });
    }
  });

  it('narrows a report number by its lab (any case); labs can share numbers', async () => {
    const report = unique('R');
    const gia = graded({ grader_report_number: report, grading_lab: 'GIA' });
    const igi = graded({ grader_report_number: report, grading_lab: 'IGI' });
    await publish(gia, 1);
    await publish(igi, 1);
    const both = [gia.diamond_id, igi.diamond_id].sort();
    await finds(`grader_report_number=${report}`, both);
    expect((await lookup(`grader_report_number=${report}&grading_lab=igi`)).ids).toEqual([igi.diamond_id]);
    expect((await lookup(`grader_report_number=${report}&grading_lab=GIA`)).ids).toEqual([gia.diamond_id]);
    expect((await lookup(`grader_report_number=${report}&grading_lab=HRD`)).ids).toEqual([]);
  });

  it('finds a diamond by any one of its inscriptions and by its certificate number', async () => {
    const [first, second, certificate] = [unique('GIA 21414'), unique('Mine lot'), unique('Cert')];
    const d = graded({ grader_inscription_numbers: [first, second], grader_certificate_number: certificate });
    await publish(d, 1);
    await finds(`inscription=${encodeURIComponent(second.toLowerCase())}`, [d.diamond_id]);
    expect((await lookup(`inscription=${encodeURIComponent(first)}`)).ids).toEqual([d.diamond_id]);
    expect((await lookup(`inscription=${encodeURIComponent(first.slice(0, -2))}`)).ids).toEqual([]);
    expect((await lookup(`certificate_number=${encodeURIComponent(certificate.toLowerCase())}`)).ids).toEqual([d.diamond_id]);
    // Each criterion looks at its own member only.
    expect((await lookup(`grader_report_number=${encodeURIComponent(certificate)}`)).ids).toEqual([]);
    expect((await lookup(`certificate_number=${encodeURIComponent(first)}`)).ids).toEqual([]);
  });

  it("only the active grading's values: a deselected or replaced grading stops finding the diamond, a deleted diamond is not found", async () => {
    const [old, replacement, inscription] = [unique('OLD'), unique('NEW'), unique('INS')];
    const d = graded({ grader_report_number: old, grader_inscription_numbers: [inscription] });
    await publish(d, 1);
    await finds(`grader_report_number=${old}`, [d.diamond_id]);
    // Another grading selected: the old number no longer finds it, the new one does.
    const replaced = { ...d, version_id: randomUUID(), grading: [grading({ grader_report_number: replacement })] };
    await publish(replaced, 2);
    await finds(`grader_report_number=${replacement}`, [d.diamond_id]);
    expect((await lookup(`grader_report_number=${old}`)).ids).toEqual([]);
    expect((await lookup(`inscription=${inscription}`)).ids).toEqual([]);
    // Deselected (no active grading).
    await publish({ ...replaced, version_id: randomUUID(), grading: null }, 3);
    await finds(`grader_report_number=${replacement}`, []);
    // A record whose only grading is inactive is not found by it either.
    const inactive = graded({ grader_report_number: unique('INACTIVE'), is_active: false });
    await publish(inactive, 1);
    await eventually(async () => {
      const res = await fetch(`${search}/v1/diamonds/${inactive.diamond_id}`, { headers: { authorization: token } });
      return res.status === 200 ? true : undefined;
    }, 'the inactive one in search');
    expect((await lookup(`grader_report_number=${inactive.grading![0].grader_report_number}`)).ids).toEqual([]);
    // Deleted.
    const gone = graded({ grader_certificate_number: unique('GONE') });
    await publish(gone, 1);
    const q = `certificate_number=${gone.grading![0].grader_certificate_number}`;
    await finds(q, [gone.diamond_id]);
    await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: gone.diamond_id, value: deleted(gone.diamond_id, 2) }]);
    await finds(q, []);
  });

  it('answers at most 20 diamonds, ordered by diamond_id, and 200 with [] for none', async () => {
    const report = unique('MANY');
    const many = Array.from({ length: 25 }, () => graded({ grader_report_number: report }));
    await stack.transport.publish(many.map((d) => ({ topic: Topics.PLATFORM_DIAMONDS, key: d.diamond_id, value: upserted(d, 1) })));
    await eventually(async () => {
      const n = await withDb(
        stack.databases.search!,
        async (c) => (await c.query('SELECT count(*)::int AS n FROM search_diamonds WHERE lookup_report_number = lower($1)', [report])).rows[0].n,
      );
      return n === 25 ? true : undefined;
    }, 'the 25 diamonds in search');
    const got = await lookup(`grader_report_number=${report}`);
    expect(got.ids).toEqual(
      many
        .map((d) => d.diamond_id)
        .sort()
        .slice(0, 20),
    );
    const none = await get(`grader_report_number=${unique('NONE')}`);
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('{"results":[]}');
  });

  it('422 naming the members for no criterion, several, grading_lab without a report number, and values out of bounds', async () => {
    const detail = async (query: string) => {
      const res = await get(query);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      return (await res.json()) as { message: string; detail: { loc: string[]; msg: string; type: string }[] };
    };
    const none = await detail('');
    expect(none.detail).toEqual([
      { loc: ['query'], msg: 'exactly one of grader_report_number, inscription, certificate_number is required; none was given', type: 'missing' },
    ]);
    expect((await detail('grading_lab=GIA')).detail[0].msg).toContain('none was given');
    const several = await detail('grader_report_number=R1&inscription=I1');
    expect(several.detail).toEqual([
      {
        loc: ['query'],
        msg: 'exactly one of grader_report_number, inscription, certificate_number is allowed; several were given: grader_report_number, inscription',
        type: 'too_many_criteria',
      },
    ]);
    expect((await detail('inscription=I1&certificate_number=C1&grader_report_number=R1')).message).toContain('several were given');
    expect((await detail('inscription=I1&grading_lab=GIA')).detail).toEqual([
      { loc: ['query', 'grading_lab'], msg: 'grading_lab narrows grader_report_number only, not inscription', type: 'value_error' },
    ]);
    const locs = async (query: string) => [...new Set((await detail(query)).detail.map((d) => d.loc.join('.')))];
    expect(await locs(`grader_report_number=${'x'.repeat(257)}`)).toEqual(['query.grader_report_number']);
    expect(await locs(`inscription=${'x'.repeat(257)}`)).toEqual(['query.inscription']);
    expect(await locs(`certificate_number=${'x'.repeat(257)}`)).toEqual(['query.certificate_number']);
    expect(await locs('grader_report_number=')).toEqual(['query.grader_report_number']);
    expect(await locs('grader_report_number=R1&grading_lab=NOPE')).toEqual(['query.grading_lab']);
    expect(await locs('grader_report_number=R1&grader_report_number=R2')).toEqual(['query.grader_report_number']);
    expect(await locs('report=R1')).toEqual(['query.report']);
    expect(await locs('grader_report_number=a%00b')).toEqual(['query.grader_report_number']);
    // 256 characters are fine.
    expect((await get(`grader_report_number=${'x'.repeat(256)}`)).status).toBe(200);
  });

  it('401 without a token; 403 for a search-audience token of any role but non_participant', async () => {
    const anonymous = await fetch(`${search}/v1/lookup?grader_report_number=R1`);
    expect(anonymous.status).toBe(401);
    const key = await withDb(stack.databases.auth!, async (c) => {
      const { rows } = await c.query<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM signing_keys WHERE active LIMIT 1');
      return rows[0];
    });
    const signing = await importJWK(JSON.parse(key.private_jwk), 'ES256');
    for (const role of ['producer', 'retailer', 'grading_lab']) {
      const forged = await new SignJWT({ client_id: 'c1', participant_id: randomUUID(), role })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
        .setIssuer(TEST_ISSUER)
        .setAudience(TEST_AUDIENCES.search)
        .setSubject('c1')
        .setIssuedAt()
        .setJti(randomUUID())
        .setExpirationTime('5m')
        .sign(signing);
      const res = await fetch(`${search}/v1/lookup?grader_report_number=R1`, { headers: { authorization: `Bearer ${forged}` } });
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
    }
  });
});
