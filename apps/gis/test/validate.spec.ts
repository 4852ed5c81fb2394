import {
  GisTestStack,
  Json,
  VALIDATE_OK,
  VERIFY_OK,
  answered,
  client,
  diamondRecord,
  eligibleDiamond,
  feed,
  fixture,
  lab,
  mintToken,
  pathOf,
  publishDeleted,
  publishedFor,
  putBlob,
  startGis,
  waitApplied,
} from './gis-helpers';
import { Topics } from '@dtp/domain';

const PUBLIC = 'https://gis.example.test/base';
/** status_url minus the public base (a reverse proxy would strip /base). */
const rel = (statusUrl: unknown) => (statusUrl as string).slice(PUBLIC.length);

/** Polls a published-events probe until it finds something (or answers [] after 10 s). */
async function waitForPublished<T>(probe: () => T[]): Promise<T[]> {
  const until = Date.now() + 10_000;
  while (probe().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return probe();
}

describe('validate-json, poll and history', () => {
  let t: GisTestStack;
  let token: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    t = await startGis({ PUBLIC_BASE_URL: PUBLIC });
    token = (await lab(t)).token;
    api = client(t.gis, token);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An eligible diamond this lab has verified. */
  async function verified(report: Parameters<typeof eligibleDiamond>[1] = {}, o: Parameters<typeof eligibleDiamond>[2] = {}): Promise<string> {
    const d = await eligibleDiamond(t, report, o);
    const res = await api.post(`/v2/diamonds/${d.diamond_id}/verify`, { carat_weight: Number(o.carats ?? '1.02'), shape_group: o.shape ?? 'Round' });
    expect(res.body.status).toBe('success');
    return d.diamond_id;
  }

  async function validate(id: string, body: Json = VALIDATE_OK): Promise<Json> {
    const res = await api.post(`/v2/diamonds/${id}/validate-json`, body);
    expect(res.status).toBe(202);
    return answered(t.gis, token, rel(res.body.status_url));
  }

  describe('acceptance', () => {
    it('202 {diamond_id, request_id, status_url (absolute), verification_status: Pending}', async () => {
      const id = await verified();
      const res = await api.post(`/v2/diamonds/${id}/validate-json`, VALIDATE_OK);
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual(['diamond_id', 'request_id', 'status_url', 'verification_status']);
      expect(res.body).toMatchObject({ diamond_id: id, verification_status: 'Pending' });
      expect(res.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.status_url).toBe(`${PUBLIC}/v2/diamonds/${id}/validate/${res.body.request_id as string}`);
    });

    it('412 {reason: no_successful_verify, detail} without a successful verify by this lab', async () => {
      const d = await eligibleDiamond(t);
      const res = await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK);
      expect(res.status).toBe(412);
      expect(res.body.reason).toBe('no_successful_verify');
      expect(typeof res.body.detail).toBe('string');
      // A failed verify does not count.
      await api.post(`/v2/diamonds/${d.diamond_id}/verify`, { carat_weight: 3, shape_group: 'Round' });
      expect((await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).status).toBe(412);
      // Another lab's successful verify does not count for this lab.
      const other = client(t.gis, (await lab(t)).token);
      expect((await other.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).body.status).toBe('success');
      expect((await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).status).toBe(412);
      expect((await other.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).status).toBe(202);
    });

    it('404 {detail} unknown, 410 deleted', async () => {
      expect(await api.post(`/v2/diamonds/${'c'.repeat(26)}/validate-json`, VALIDATE_OK)).toMatchObject({ status: 404, body: { detail: 'diamond not found' } });
      const id = await verified();
      await publishDeleted(t, id, 2);
      await waitApplied(t, id, 2);
      const res = await api.post(`/v2/diamonds/${id}/validate-json`, VALIDATE_OK);
      expect(res.status).toBe(410);
      expect(res.body).toEqual({ reason: 'diamond_has_been_deleted', detail: null });
    });

    it('409 for each ineligibility reason, including shape_not_supported (group Other)', async () => {
      const rough = await feed(t, diamondRecord({ lifecycle: 'rough' }));
      expect((await api.post(`/v2/diamonds/${rough.diamond_id}/validate-json`, VALIDATE_OK)).body.reason).toBe('diamond_is_not_polished');
      const noReport = await feed(t, diamondRecord({ reports: [] }));
      expect((await api.post(`/v2/diamonds/${noReport.diamond_id}/validate-json`, VALIDATE_OK)).body.reason).toBe('diamond_has_no_scan_report');
      const json = await feed(t, diamondRecord({ reports: [await putBlob(t, await fixture('wrong-type.json'))] }));
      const notSupported = await api.post(`/v2/diamonds/${json.diamond_id}/validate-json`, VALIDATE_OK);
      expect(notSupported).toMatchObject({ status: 409, body: { reason: 'scan_report_not_supported', detail: { generic_error: expect.any(String) } } });
      const bad = await feed(t, diamondRecord({ reports: [await putBlob(t, await fixture('bad-value-not-decimal.xml'))] }));
      const parseError = await api.post(`/v2/diamonds/${bad.diamond_id}/validate-json`, VALIDATE_OK);
      expect(parseError.status).toBe(409);
      expect(parseError.body.reason).toBe('scan_report_parse_error');
      expect((parseError.body.detail as Json).estimated_weight_crt).toEqual([
        { value: '1.02ct', xpath: '/ScanReport/EstimatedWeight', error_type: 'value_not_a_decimal' },
      ]);
      const trilliant = await verified({ shape: 'Trilliant' }, { shape: 'Trilliant' });
      const other = await api.post(`/v2/diamonds/${trilliant}/validate-json`, { ...VALIDATE_OK, shape_group: 'Trilliant' });
      expect(other.status).toBe(409);
      expect(other.body.reason).toBe('shape_not_supported');
      expect(other.body.detail).toMatch(/Trilliant/);
    });

    it.each([
      ['missing girdle_avg_mm', (({ girdle_avg_mm: _g, ...rest }) => rest)(VALIDATE_OK), 'girdle_avg_mm'],
      ['text instead of a number', { ...VALIDATE_OK, table_avg_mm: '3.71' }, 'table_avg_mm'],
      ['negative', { ...VALIDATE_OK, total_depth_mm: -1 }, 'total_depth_mm'],
      ['unknown shape_group', { ...VALIDATE_OK, shape_group: 'Blob' }, 'shape_group'],
      ['unknown field', { ...VALIDATE_OK, girdle_min_mm: 1 }, 'girdle_min_mm'],
      ['optional angle as text', { ...VALIDATE_OK, crown_angle_deg: 'x' }, 'crown_angle_deg'],
    ])('422 for %s, naming the field', async (_name, body, field) => {
      const id = await verified();
      const res = await api.post(`/v2/diamonds/${id}/validate-json`, body);
      expect(res.status).toBe(422);
      expect((res.body.detail as { loc: string[] }[]).some((d) => d.loc[1] === field)).toBe(true);
    });

    it('403 for other roles', async () => {
      const id = await verified();
      const res = await client(t.gis, await mintToken(t, 'manufacturer')).post(`/v2/diamonds/${id}/validate-json`, VALIDATE_OK);
      expect(res.status).toBe(403);
    });
  });

  describe('answers', () => {
    it('Verified with the seven parameters; shape carries strings only', async () => {
      const id = await verified();
      const result = await validate(id);
      expect(Object.keys(result).sort()).toEqual([
        'diamond_id',
        'parameters',
        'request_id',
        'requested_at',
        'verification_description',
        'verification_error',
        'verification_status',
      ]);
      expect(result).toMatchObject({ diamond_id: id, verification_status: 'Verified', verification_error: null });
      expect(new Date(result.requested_at as string).toISOString()).toBe(result.requested_at);
      const parameters = result.parameters as Record<string, Json>;
      expect(Object.keys(parameters).sort()).toEqual([
        'crown_angle_avg_deg',
        'estimated_weight_crt',
        'girdle_avg_mm',
        'pavilion_angle_avg_deg',
        'shape',
        'table_avg_mm',
        'total_depth_mm',
      ]);
      expect(parameters.shape).toEqual({ validation_result: 'matched', platform_value: 'Round', lab_value: 'Round' });
      expect(parameters.girdle_avg_mm).toEqual({ validation_result: 'matched', platform_value: '7.55', lab_value: '7.55', difference: '0', tolerance: '0.5' });
      // the answer is published (gis.validations.v1, key = request id) for platform to tell the diamond's holder
      const requestId = result.request_id as string;
      const events = await waitForPublished(() => publishedFor(t, Topics.GIS_VALIDATIONS, requestId));
      expect(events).toEqual([
        expect.objectContaining({
          event_type: 'validation.answered',
          key: requestId,
          revision: 1,
          data: expect.objectContaining({ request_id: requestId, diamond_id: id, verification_status: 'Verified' }),
        }),
      ]);
    });

    it('Unverifiable when a required measurement is out of tolerance or the shape group differs', async () => {
      const id = await verified();
      const depth = await validate(id, { ...VALIDATE_OK, total_depth_mm: 4.3 });
      expect(depth.verification_status).toBe('Unverifiable');
      expect((depth.parameters as Record<string, Json>).total_depth_mm).toMatchObject({ validation_result: 'out_of_tolerance', difference: '0.1' });
      expect(depth.verification_description).toMatch(/total_depth_mm/);
      const shape = await validate(id, { ...VALIDATE_OK, shape_group: 'Princess' });
      expect(shape.verification_status).toBe('Unverifiable');
      expect((shape.parameters as Record<string, Json>).shape).toEqual({
        validation_result: 'out_of_tolerance',
        platform_value: 'Round',
        lab_value: 'Princess',
      });
    });

    // Scan report: weight 1.02, girdle 7.55, table 3.71, depth 4.2, crown 34.5, pavilion 40.8.
    // At the bound, binary floating point says |lab - platform| > tolerance (e.g. |1.00 - 1.02| = 0.020000000000000018).
    const bounds: [string, string, string, number, number, number][] = [
      ['estimated_weight_crt', 'estimated_weight_crt', '0.02', 1.0, 1.001, 0.999],
      ['girdle_avg_mm', 'girdle_avg_mm', '0.5', 8.05, 8.049, 8.051],
      ['table_avg_mm', 'table_avg_mm', '0.143', 3.853, 3.852, 3.854],
      ['total_depth_mm', 'total_depth_mm', '0.073', 4.127, 4.128, 4.126],
      ['crown_angle_avg_deg', 'crown_angle_deg', '1.1', 35.6, 35.599, 35.601],
      ['pavilion_angle_avg_deg', 'pavillion_angle_deg', '0.27', 41.07, 41.069, 41.071],
    ];
    it.each(bounds)('%s (request field %s): at the tolerance (float trap), just inside and just outside', async (param, field, tol, at, inside, outside) => {
      const id = await verified();
      const optional = field.endsWith('_deg');
      const atBound = await validate(id, { ...VALIDATE_OK, [field]: at });
      expect((atBound.parameters as Record<string, Json>)[param]).toMatchObject({ validation_result: 'matched', difference: tol, tolerance: tol });
      expect(atBound.verification_status).toBe('Verified');
      const inBound = await validate(id, { ...VALIDATE_OK, [field]: inside });
      expect((inBound.parameters as Record<string, Json>)[param]).toMatchObject({ validation_result: 'matched' });
      const outBound = await validate(id, { ...VALIDATE_OK, [field]: outside });
      expect((outBound.parameters as Record<string, Json>)[param]).toMatchObject({ validation_result: 'out_of_tolerance', lab_value: String(outside) });
      expect(outBound.verification_status).toBe(optional ? 'Verified' : 'Unverifiable');
    });

    it('optional angles missing (request or report), zero or out of tolerance are reported and keep Verified', async () => {
      const id = await verified();
      const { crown_angle_deg: _c, pavillion_angle_deg: _p, ...required } = VALIDATE_OK;
      const missing = await validate(id, required);
      expect(missing.verification_status).toBe('Verified');
      expect((missing.parameters as Record<string, Json>).crown_angle_avg_deg).toEqual({
        validation_result: 'missing',
        platform_value: '34.5',
        lab_value: null,
        difference: null,
        tolerance: '1.1',
      });
      expect((missing.parameters as Record<string, Json>).pavilion_angle_avg_deg.validation_result).toBe('missing');

      const zero = await validate(id, { ...VALIDATE_OK, crown_angle_deg: 0, pavillion_angle_deg: 0 });
      expect(zero.verification_status).toBe('Verified');
      expect((zero.parameters as Record<string, Json>).crown_angle_avg_deg.validation_result).toBe('zero');
      expect((zero.parameters as Record<string, Json>).pavilion_angle_avg_deg.validation_result).toBe('zero');

      const out = await validate(id, { ...VALIDATE_OK, crown_angle_deg: 40, pavillion_angle_deg: 30 });
      expect(out.verification_status).toBe('Verified');
      expect((out.parameters as Record<string, Json>).crown_angle_avg_deg).toMatchObject({ validation_result: 'out_of_tolerance', difference: '5.5' });

      const noAngles = await verified({ crown: null, pavilion: null });
      const reportMissing = await validate(noAngles);
      expect(reportMissing.verification_status).toBe('Verified');
      expect((reportMissing.parameters as Record<string, Json>).crown_angle_avg_deg).toMatchObject({
        validation_result: 'missing',
        platform_value: null,
        lab_value: '34.5',
      });

      const zeroInReport = await verified({ crown: '0', pavilion: '0.0' });
      const z = await validate(zeroInReport);
      expect((z.parameters as Record<string, Json>).pavilion_angle_avg_deg).toMatchObject({ validation_result: 'zero', platform_value: '0.0' });
      expect(z.verification_status).toBe('Verified');
    });
  });

  describe('poll and history', () => {
    it('poll is only for the requesting lab; unknown or malformed ids are 404', async () => {
      const id = await verified();
      const res = await api.post(`/v2/diamonds/${id}/validate-json`, VALIDATE_OK);
      const path = rel(res.body.status_url);
      expect((await api.get(path)).status).toBe(200);
      const other = client(t.gis, (await lab(t)).token);
      expect(await other.get(path)).toMatchObject({ status: 404, body: { detail: 'validation request not found' } });
      expect((await api.get(`/v2/diamonds/${id}/validate/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      expect((await api.get(`/v2/diamonds/${id}/validate/not-a-uuid`)).status).toBe(404);
      expect((await api.get(`/v2/diamonds/${'d'.repeat(26)}/validate/${res.body.request_id as string}`)).status).toBe(404);
    });

    it('historic is its own route (not a request id) and lists answered requests newest first with expired false', async () => {
      const id = await verified();
      const first = await validate(id);
      const second = await validate(id, { ...VALIDATE_OK, girdle_avg_mm: 9 });
      const res = await api.get(`/v2/diamonds/${id}/validate/historic`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body).toEqual([
        {
          diamond_id: id,
          request_id: second.request_id,
          requested_at: second.requested_at,
          verification_status: 'Unverifiable',
          verification_description: second.verification_description,
          verification_error: null,
          expired: false,
        },
        expect.objectContaining({ request_id: first.request_id, verification_status: 'Verified', expired: false }),
      ]);
      // Another lab sees none of them; an unknown diamond is 404.
      const other = client(t.gis, (await lab(t)).token);
      expect((await other.get(`/v2/diamonds/${id}/validate/historic`)).body).toEqual([]);
      expect((await api.get(`/v2/diamonds/${'e'.repeat(26)}/validate/historic`)).status).toBe(404);
    });
  });
});

describe('validation expiry', () => {
  let t: GisTestStack;
  beforeAll(async () => {
    t = await startGis({ VALIDATION_EXPIRY_SECONDS: '2' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('history marks a result expired once VALIDATION_EXPIRY_SECONDS have passed since its answer', async () => {
    const token = (await lab(t)).token;
    const api = client(t.gis, token);
    const d = await eligibleDiamond(t);
    expect((await api.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).body.status).toBe('success');
    const res = await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK);
    await answered(t.gis, token, pathOf(res.body.status_url as string));
    expect((await api.get(`/v2/diamonds/${d.diamond_id}/validate/historic`)).body).toEqual([expect.objectContaining({ expired: false })]);
    await new Promise((r) => setTimeout(r, 2200));
    expect((await api.get(`/v2/diamonds/${d.diamond_id}/validate/historic`)).body).toEqual([
      expect.objectContaining({ request_id: res.body.request_id, verification_status: 'Verified', expired: true }),
    ]);
  });
});
