import { createHash } from 'node:crypto';
import {
  GisTestStack,
  VALIDATE_OK,
  VERIFY_OK,
  answered,
  client,
  diamondRecord,
  eligibleDiamond,
  feed,
  lab,
  pathOf,
  publishDeleted,
  scanReportXml,
  startGis,
  waitApplied,
} from './gis-helpers';

/**
 * Every refusal of the five GIS routes, byte for byte: status, the exact JSON text and the headers that matter
 * (content type, length, Retry-After). The request id of a 5xx answer varies, so it is compared by shape.
 * Also the verify_attempts row a refused verify leaves (outcome, http_status, response).
 */
describe('GIS error answers, exactly', () => {
  let t: GisTestStack;
  let token: string;
  let labId: string;
  beforeAll(async () => {
    t = await startGis({ VALIDATION_EXPIRY_SECONDS: '3600' });
    const l = await lab(t);
    token = l.token;
    labId = l.participant_id;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function raw(method: 'GET' | 'POST', path: string, body?: unknown) {
    const res = await fetch(`${t.gis}${path}`, {
      method,
      headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      text,
      contentType: res.headers.get('content-type'),
      contentLength: res.headers.get('content-length'),
      retryAfter: res.headers.get('retry-after'),
    };
  }

  const GRADING = {
    grader_certificate_number: 'CERT-1',
    grader_report_number: 'RPT-1',
    grading_lab: 'GIA',
    graded_date: '2025-03-04T10:00:00Z',
    carats: 1.02,
    shape: 'Round',
  };
  const json = (text: string) => ({ contentType: 'application/json; charset=utf-8', contentLength: String(Buffer.byteLength(text)), text });

  async function attempts(diamondId: string) {
    const { rows } = await t.db.query(
      `SELECT outcome, http_status, response FROM verify_attempts WHERE diamond_id = $1 AND lab_participant_id = $2 ORDER BY created_at`,
      [diamondId, labId],
    );
    return rows;
  }

  it('unknown diamond: 404 {"detail"} on verify, validate, history and grading; unknown request: 404 on poll', async () => {
    const id = 'a'.repeat(26);
    const notFound = { status: 404, retryAfter: null, ...json('{"detail":"diamond not found"}') };
    expect(await raw('POST', `/v2/diamonds/${id}/verify`, VERIFY_OK)).toEqual(notFound);
    expect(await raw('POST', `/v2/diamonds/${id}/validate-json`, VALIDATE_OK)).toEqual(notFound);
    expect(await raw('GET', `/v2/diamonds/${id}/validate/historic`)).toEqual(notFound);
    expect(await raw('POST', `/v2/diamonds/${id}/grading`, GRADING)).toEqual(notFound);
    expect(await raw('GET', `/v2/diamonds/${id}/validate/00000000-0000-4000-8000-000000000000`)).toEqual({
      status: 404,
      retryAfter: null,
      ...json('{"detail":"validation request not found"}'),
    });
    expect(await attempts(id)).toEqual([{ outcome: 'not_found', http_status: 404, response: { detail: 'diamond not found' } }]);
  });

  it('deleted diamond: 410 {"reason":"diamond_has_been_deleted","detail":null} on verify, validate and grading', async () => {
    const d = await eligibleDiamond(t);
    await publishDeleted(t, d.diamond_id, 2);
    await waitApplied(t, d.diamond_id, 2);
    const gone = { status: 410, retryAfter: null, ...json('{"reason":"diamond_has_been_deleted","detail":null}') };
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).toEqual(gone);
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).toEqual(gone);
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/grading`, GRADING)).toEqual(gone);
    expect(await attempts(d.diamond_id)).toEqual([{ outcome: 'deleted', http_status: 410, response: { reason: 'diamond_has_been_deleted', detail: null } }]);
  });

  it('ineligible diamond: 409 {"reason","detail"} on verify and validate', async () => {
    const d = await feed(t, diamondRecord({ lifecycle: 'rough' }));
    const detail = 'the diamond\'s lifecycle_state is "rough", not "polished"';
    const conflict = { status: 409, retryAfter: null, ...json(JSON.stringify({ reason: 'diamond_is_not_polished', detail })) };
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).toEqual(conflict);
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).toEqual(conflict);
    expect(await attempts(d.diamond_id)).toEqual([{ outcome: 'ineligible', http_status: 409, response: { reason: 'diamond_is_not_polished', detail } }]);
  });

  it('scan report not in the blob store yet: 503 {"detail","request_id"} with Retry-After: 5, no attempt recorded', async () => {
    const hash = createHash('sha256')
      .update(scanReportXml({ weight: '0.91' }))
      .digest('hex');
    const d = await feed(t, diamondRecord({ reports: [hash] }));
    for (const path of [`/v2/diamonds/${d.diamond_id}/verify`, `/v2/diamonds/${d.diamond_id}/validate-json`]) {
      const res = await raw('POST', path, path.endsWith('verify') ? VERIFY_OK : VALIDATE_OK);
      const body = JSON.parse(res.text) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['detail', 'request_id']);
      expect(typeof body.request_id).toBe('string');
      const text = JSON.stringify({ detail: "the diamond's scan report cannot be read from the file store yet; retry later", request_id: body.request_id });
      expect(res).toEqual({ status: 503, retryAfter: '5', ...json(text) });
    }
    expect(await attempts(d.diamond_id)).toEqual([]);
  });

  it('validate: 422 for an unknown shape_group, 409 shape_not_supported, 412 no_successful_verify', async () => {
    const d = await eligibleDiamond(t);
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/validate-json`, { ...VALIDATE_OK, shape_group: 'Blob' })).toEqual({
      status: 422,
      retryAfter: null,
      ...json(
        '{"detail":[{"loc":["body","shape_group"],"msg":"shape_group must be a shape or a shape group name","type":"enum"}],' +
          '"message":"shape_group: shape_group must be a shape or a shape group name"}',
      ),
    });
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK)).toEqual({
      status: 412,
      retryAfter: null,
      ...json('{"reason":"no_successful_verify","detail":"no successful verify request by this lab exists for this diamond; call verify first"}'),
    });
    const other = await eligibleDiamond(t, { shape: 'Trilliant' }, { shape: 'Trilliant' });
    expect(await raw('POST', `/v2/diamonds/${other.diamond_id}/validate-json`, VALIDATE_OK)).toEqual({
      status: 409,
      retryAfter: null,
      ...json(
        '{"reason":"shape_not_supported","detail":"the diamond\'s shape \\"Trilliant\\" has no supported shape group (group Other); validation is not available"}',
      ),
    });
  });

  it('grading: 412 {"reason":"no_verified_validation","detail"} until a Verified validation exists, then 201', async () => {
    const d = await eligibleDiamond(t);
    expect(await raw('POST', `/v2/diamonds/${d.diamond_id}/grading`, GRADING)).toEqual({
      status: 412,
      retryAfter: null,
      ...json('{"reason":"no_verified_validation","detail":"no unexpired Verified validation of this diamond by this lab exists; validate it first"}'),
    });
    const api = client(t.gis, token);
    expect((await api.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).status).toBe(200);
    const accepted = await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, VALIDATE_OK);
    expect(accepted.status).toBe(202);
    await answered(t.gis, token, pathOf(accepted.body.status_url as string));
    const res = await raw('POST', `/v2/diamonds/${d.diamond_id}/grading`, GRADING);
    expect(res.status).toBe(201);
    const body = JSON.parse(res.text) as Record<string, unknown>;
    expect(res).toEqual({
      status: 201,
      retryAfter: null,
      ...json(JSON.stringify({ grading_id: body.grading_id, diamond_id: d.diamond_id, status: 'accepted' })),
    });
  });
});
