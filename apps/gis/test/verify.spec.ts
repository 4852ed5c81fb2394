import { Topics } from '@dtp/domain';
import { TEST_AUDIENCES } from '@dtp/testing';
import {
  GisTestStack,
  VERIFY_OK,
  client,
  diamondRecord,
  eligibleDiamond,
  feed,
  fixture,
  lab,
  mintToken,
  publishDeleted,
  publishedFor,
  putBlob,
  startGis,
  waitApplied,
  waitFor,
} from './gis-helpers';

describe('POST /v2/diamonds/{diamond_id}/verify', () => {
  let t: GisTestStack;
  let api: ReturnType<typeof client>;
  let labId: string;

  beforeAll(async () => {
    t = await startGis();
    const l = await lab(t);
    labId = l.participant_id;
    api = client(t.gis, l.token);
  });
  afterAll(async () => {
    await t?.close();
  });

  const verify = (id: string, body: unknown = VERIFY_OK) => api.post(`/v2/diamonds/${id}/verify`, body);

  describe('authentication and roles', () => {
    it('401 without a token and with a token for another audience', async () => {
      const d = await eligibleDiamond(t);
      expect((await client(t.gis).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).status).toBe(401);
      const platformToken = await mintToken(t, 'grading_lab', TEST_AUDIENCES.platform);
      expect((await client(t.gis, platformToken).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).status).toBe(401);
    });

    it.each(['producer', 'manufacturer', 'retailer', 'non_participant'] as const)('403 for role %s (even with a gis token)', async (role) => {
      const d = await eligibleDiamond(t);
      const res = await client(t.gis, await mintToken(t, role)).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK);
      expect(res.status).toBe(403);
    });

    it('accepts the token with and without "Bearer "', async () => {
      const l = await lab(t);
      const d = await eligibleDiamond(t);
      expect((await client(t.gis, `Bearer ${l.token}`).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).status).toBe(200);
      expect((await client(t.gis, l.token).post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).status).toBe(200);
    });
  });

  it('documents the five GIS routes in OpenAPI (/docs/json)', async () => {
    const doc = (await (await fetch(`${t.gis}/docs/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v2/diamonds/{diamond_id}/verify',
        '/v2/diamonds/{diamond_id}/validate-json',
        '/v2/diamonds/{diamond_id}/validate/historic',
        '/v2/diamonds/{diamond_id}/validate/{request_id}',
        '/v2/diamonds/{diamond_id}/grading',
      ]),
    );
  });

  describe('request body (422 with detail naming the field)', () => {
    let id: string;
    beforeAll(async () => {
      id = (await eligibleDiamond(t)).diamond_id;
    });

    it.each([
      ['missing carat_weight', { shape_group: 'Round' }, 'carat_weight'],
      ['missing shape_group', { carat_weight: 1 }, 'shape_group'],
      ['carat_weight as text', { carat_weight: '1.02', shape_group: 'Round' }, 'carat_weight'],
      ['carat_weight zero', { carat_weight: 0, shape_group: 'Round' }, 'carat_weight'],
      ['carat_weight negative', { carat_weight: -1, shape_group: 'Round' }, 'carat_weight'],
      ['unknown shape', { carat_weight: 1, shape_group: 'Blob' }, 'shape_group'],
      ['shape_group not a string', { carat_weight: 1, shape_group: 7 }, 'shape_group'],
      ['unknown field', { ...VERIFY_OK, colour: 'D' }, 'colour'],
    ])('%s', async (_name, body, field) => {
      const res = await verify(id, body);
      expect(res.status).toBe(422);
      const detail = res.body.detail as { loc: string[] }[];
      expect(detail.some((d) => d.loc[0] === 'body' && d.loc[1] === field)).toBe(true);
    });

    it('a body that is not JSON is 422', async () => {
      const res = await verify(id, '{"carat_weight":');
      expect(res.status).toBe(422);
      expect(res.body.detail).toBeDefined();
    });
  });

  describe('diamond state', () => {
    it('404 {detail} for a diamond GIS does not know', async () => {
      const res = await verify('a'.repeat(26));
      expect(res).toMatchObject({ status: 404, body: { detail: 'diamond not found' } });
    });

    it('410 {reason: diamond_has_been_deleted, detail: null} once deleted', async () => {
      const d = await eligibleDiamond(t);
      await publishDeleted(t, d.diamond_id, 2);
      await waitApplied(t, d.diamond_id, 2);
      const res = await verify(d.diamond_id);
      expect(res.status).toBe(410);
      expect(res.body).toEqual({ reason: 'diamond_has_been_deleted', detail: null });
    });

    it('409 diamond_is_not_polished for a rough diamond', async () => {
      const d = await feed(t, diamondRecord({ lifecycle: 'rough' }));
      const res = await verify(d.diamond_id);
      expect(res.status).toBe(409);
      expect(res.body.reason).toBe('diamond_is_not_polished');
      expect(typeof res.body.detail).toBe('string');
    });

    it('409 diamond_has_no_scan_report for a polished diamond without one', async () => {
      const d = await feed(t, diamondRecord({ reports: [] }));
      const res = await verify(d.diamond_id);
      expect(res).toMatchObject({ status: 409, body: { reason: 'diamond_has_no_scan_report' } });
    });

    it('409 scan_report_not_supported {generic_error} for another file type', async () => {
      const hash = await putBlob(t, await fixture('wrong-type.pdf'));
      const d = await feed(t, diamondRecord({ reports: [hash] }));
      const res = await verify(d.diamond_id);
      expect(res.status).toBe(409);
      expect(res.body.reason).toBe('scan_report_not_supported');
      expect(Object.keys(res.body.detail as object)).toEqual(['generic_error']);
      expect((res.body.detail as { generic_error: string }).generic_error).toMatch(/not a UTF-8 XML document/);
    });

    it('409 scan_report_not_supported for another root element', async () => {
      const hash = await putBlob(t, await fixture('wrong-root.xml'));
      const d = await feed(t, diamondRecord({ reports: [hash] }));
      const res = await verify(d.diamond_id);
      expect(res.body).toEqual({
        reason: 'scan_report_not_supported',
        detail: { generic_error: 'the root element is <GradingReport>; expected <ScanReport format="dtp-scan-report">' },
      });
    });

    it('409 scan_report_parse_error with {field: [{value, xpath, error_type}]}', async () => {
      const hash = await putBlob(t, await fixture('bad-value-not-decimal.xml'));
      const d = await feed(t, diamondRecord({ reports: [hash] }));
      const res = await verify(d.diamond_id);
      expect(res.status).toBe(409);
      expect(res.body.reason).toBe('scan_report_parse_error');
      expect(res.body.detail).toMatchObject({
        girdle_avg_mm: [{ value: 'six', xpath: '/ScanReport/Measurements/GirdleAverage', error_type: 'value_not_a_decimal' }],
        total_depth_mm: [{ value: '3,98', xpath: '/ScanReport/Measurements/TotalDepth', error_type: 'value_not_a_decimal' }],
      });
    });

    it('the newest scan report counts', async () => {
      const bad = await putBlob(t, await fixture('wrong-root.xml'));
      const good = await putBlob(t, await fixture('good-round.xml'));
      const newestGood = await feed(t, diamondRecord({ reports: [bad, good] }));
      expect((await verify(newestGood.diamond_id)).status).toBe(200);
      const newestBad = await feed(t, diamondRecord({ reports: [good, bad] }));
      expect((await verify(newestBad.diamond_id)).body.reason).toBe('scan_report_not_supported');
    });

    it('accepts a diamond whose shape falls in group Other (verify only)', async () => {
      const d = await eligibleDiamond(t, { shape: 'Trilliant' }, { shape: 'Trilliant' });
      const res = await verify(d.diamond_id, { carat_weight: 1.02, shape_group: 'Other' });
      expect(res).toMatchObject({ status: 200, body: { status: 'success' } });
    });
  });

  describe('comparison', () => {
    it('success with is_locked true for a locked diamond, false for an unlocked one', async () => {
      const locked = await eligibleDiamond(t, {}, { unlock: 'locked' });
      expect(await verify(locked.diamond_id)).toMatchObject({ status: 200, body: { status: 'success', is_locked: true } });
      const unlocked = await eligibleDiamond(t, {}, { unlock: 'unlocked' });
      const res = await verify(unlocked.diamond_id);
      expect(res.body).toEqual({ status: 'success', is_locked: false });
    });

    it('1.00 vs declared 1.02 (tolerance 0.02) matches in decimal arithmetic', async () => {
      const d = await eligibleDiamond(t, {}, { carats: '1.02' });
      expect((await verify(d.diamond_id, { carat_weight: 1.0, shape_group: 'Round' })).body.status).toBe('success');
      expect((await verify(d.diamond_id, { carat_weight: 1.04, shape_group: 'Round' })).body.status).toBe('success');
    });

    it('a shape of the same group matches (Cushion Modified Brilliant ~ Cushion)', async () => {
      const d = await eligibleDiamond(t, { shape: 'Cushion' }, { shape: 'Cushion Modified Brilliant' });
      expect((await verify(d.diamond_id, { carat_weight: 1.02, shape_group: 'Cushion' })).body.status).toBe('success');
    });

    it('failure reports both comparisons with decimal strings and the observed tolerance "0.020"', async () => {
      const d = await eligibleDiamond(t, {}, { carats: '1.02' });
      const res = await verify(d.diamond_id, { carat_weight: 0.999, shape_group: 'Oval' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'failure',
        data: {
          carat_weight: { matched: false, known_value: '1.02', given_value: '0.999', tolerance: '0.020' },
          shape_group: { matched: false, known_value: 'Round', given_value: 'Oval' },
        },
      });
      const shapeOnly = await verify(d.diamond_id, { carat_weight: 1.021, shape_group: 'Pear' });
      expect(shapeOnly.body).toMatchObject({
        status: 'failure',
        data: { carat_weight: { matched: true, given_value: '1.021' }, shape_group: { matched: false, given_value: 'Pear' } },
      });
    });

    it('records every attempt with the calling lab, its request and the answer', async () => {
      const d = await eligibleDiamond(t);
      await verify(d.diamond_id, { carat_weight: 2, shape_group: 'Round' });
      await verify(d.diamond_id);
      await verify('b'.repeat(26));
      const { rows } = await t.db.query(
        `SELECT diamond_id, lab_participant_id, request, outcome, http_status, response FROM verify_attempts
         WHERE diamond_id IN ($1, $2) ORDER BY created_at`,
        [d.diamond_id, 'b'.repeat(26)],
      );
      expect(rows).toEqual([
        expect.objectContaining({ lab_participant_id: labId, request: { carat_weight: 2, shape_group: 'Round' }, outcome: 'failure', http_status: 200 }),
        expect.objectContaining({ outcome: 'success', http_status: 200, response: { status: 'success', is_locked: true } }),
        expect.objectContaining({ diamond_id: 'b'.repeat(26), outcome: 'not_found', http_status: 404 }),
      ]);
    });
  });

  describe('gis_status published on gis.eligibility.v1', () => {
    it('publishes eligibility.changed when it changes, and nothing when it does not', async () => {
      const d = diamondRecord({ reports: [] });
      await feed(t, d, 1);
      const hash = await putBlob(t, await fixture('good-round.xml'));
      await feed(
        t,
        { ...d, polished: { ...d.polished, scan_reports: [{ hash, filename: 'r.xml', description: null, content_type: null, size: 1, uploaded_at: null }] } },
        2,
      );
      await feed(
        t,
        {
          ...d,
          unlock_status: 'unlocked',
          polished: { ...d.polished, scan_reports: [{ hash, filename: 'r.xml', description: null, content_type: null, size: 1, uploaded_at: null }] },
        },
        3,
      );
      const events = await waitFor(() => {
        const e = publishedFor(t, Topics.GIS_ELIGIBILITY, d.diamond_id);
        return e.length >= 2 ? e : undefined;
      });
      expect(events.map((e) => [e.revision, e.data])).toEqual([
        [1, { diamond_id: d.diamond_id, gis_status: 'missing_report', reason: 'diamond_has_no_scan_report' }],
        [2, { diamond_id: d.diamond_id, gis_status: 'eligible', reason: null }],
      ]);
      expect(events.every((e) => e.key === d.diamond_id && e.event_type === 'eligibility.changed')).toBe(true);
      // The unlock (revision 3) changed nothing GIS publishes: two events in the outbox, not three.
      const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM outbox WHERE key = $1 AND topic = $2`, [d.diamond_id, Topics.GIS_ELIGIBILITY]);
      expect(rows[0].n).toBe(2);
    });
  });
});
