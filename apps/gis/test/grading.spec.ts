import { Topics } from '@dtp/domain';
import {
  GisTestStack,
  Json,
  VALIDATE_OK,
  VERIFY_OK,
  answered,
  client,
  eligibleDiamond,
  lab,
  mintToken,
  pathOf,
  publishDeleted,
  publishedFor,
  startGis,
  waitApplied,
  waitFor,
} from './gis-helpers';

const GRADING = {
  grader_certificate_number: 'CERT-2219384',
  grader_report_number: 'RPT-77',
  grader_inscription_numbers: ['GIA 2219384'],
  grading_lab: 'GIA',
  graded_date: '2025-03-04T10:00:00Z',
  carats: 1.02,
  shape: 'Round',
  colour: 'E',
  clarity: 'VS1',
  cut_grade: 'EX',
  table_percent: '57.5',
  crown_angle: 34.5,
};

describe('POST /v2/diamonds/{diamond_id}/grading', () => {
  let t: GisTestStack;
  beforeAll(async () => {
    t = await startGis({ VALIDATION_EXPIRY_SECONDS: '3' });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function labWithDiamond(report: Json = {}) {
    const l = await lab(t);
    const api = client(t.gis, l.token);
    const d = await eligibleDiamond(t, report, { holder: 'holder-participant-1' });
    expect((await api.post(`/v2/diamonds/${d.diamond_id}/verify`, VERIFY_OK)).body.status).toBe('success');
    const validate = async (body: Json = VALIDATE_OK) => {
      const res = await api.post(`/v2/diamonds/${d.diamond_id}/validate-json`, body);
      return answered(t.gis, l.token, pathOf(res.body.status_url as string));
    };
    return { l, api, id: d.diamond_id, validate };
  }

  it("412 without a Verified validation (none, only Unverifiable, or another lab's)", async () => {
    const { api, id, validate } = await labWithDiamond();
    const none = await api.post(`/v2/diamonds/${id}/grading`, GRADING);
    expect(none.status).toBe(412);
    expect(none.body).toEqual({ reason: 'no_verified_validation', detail: expect.any(String) });
    expect((await validate({ ...VALIDATE_OK, girdle_avg_mm: 1 })).verification_status).toBe('Unverifiable');
    expect((await api.post(`/v2/diamonds/${id}/grading`, GRADING)).status).toBe(412);
    const other = client(t.gis, (await lab(t)).token);
    expect((await validate()).verification_status).toBe('Verified');
    expect((await other.post(`/v2/diamonds/${id}/grading`, GRADING)).status).toBe(412);
  });

  it('201 {grading_id, diamond_id, status: accepted} and grading.submitted on gis.gradings.v1 with a stable grading_id', async () => {
    const { l, api, id, validate } = await labWithDiamond();
    await validate();
    const res = await api.post(`/v2/diamonds/${id}/grading`, GRADING);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ grading_id: expect.stringMatching(/^[0-9a-f-]{36}$/), diamond_id: id, status: 'accepted' });
    const again = await api.post(`/v2/diamonds/${id}/grading`, { ...GRADING, colour: 'F' });
    expect(again.status).toBe(201);
    expect(again.body.grading_id).not.toBe(res.body.grading_id);

    const events = await waitFor(() => {
      const e = publishedFor(t, Topics.GIS_GRADINGS, id);
      return e.length >= 2 ? e : undefined;
    });
    expect(events.map((e) => [e.event_type, e.revision, e.key])).toEqual([
      ['grading.submitted', 1, id],
      ['grading.submitted', 2, id],
    ]);
    expect(events[0].data).toEqual({
      diamond_id: id,
      grading_id: res.body.grading_id,
      holder: 'holder-participant-1',
      submitted_by: l.participant_id,
      submitted_at: expect.any(String),
      data: {
        ...GRADING,
        carats: '1.02',
        crown_angle: '34.5',
        table_percent: '57.5',
        validation_level: 'validation',
      },
    });
    const { rows } = await t.db.query(`SELECT grading_id, lab_participant_id, revision FROM gradings WHERE diamond_id = $1 ORDER BY revision`, [id]);
    expect(rows).toEqual([
      { grading_id: res.body.grading_id, lab_participant_id: l.participant_id, revision: '1' },
      { grading_id: again.body.grading_id, lab_participant_id: l.participant_id, revision: '2' },
    ]);
  });

  it.each([
    ['missing grader_certificate_number', (({ grader_certificate_number: _x, ...rest }) => rest)(GRADING), 'grader_certificate_number'],
    ['colour outside the scale', { ...GRADING, colour: 'ZZ' }, 'colour'],
    ['unknown grading_lab', { ...GRADING, grading_lab: 'ACME' }, 'grading_lab'],
    ['carats that are not decimal', { ...GRADING, carats: 'abc' }, 'carats'],
    ['graded_date not a date-time', { ...GRADING, graded_date: 'yesterday' }, 'graded_date'],
    ['unknown field', { ...GRADING, source: 'gis' }, 'source'],
  ])('422 for %s, naming the field', async (_name, body, field) => {
    const { api, id, validate } = await labWithDiamond();
    await validate();
    const res = await api.post(`/v2/diamonds/${id}/grading`, body);
    expect(res.status).toBe(422);
    expect((res.body.detail as { loc: string[] }[]).some((d) => d.loc[1] === field)).toBe(true);
  });

  it('404 unknown, 410 deleted, 403 other roles', async () => {
    const { api, id, validate } = await labWithDiamond();
    await validate();
    expect(await api.post(`/v2/diamonds/${'f'.repeat(26)}/grading`, GRADING)).toMatchObject({ status: 404, body: { detail: 'diamond not found' } });
    expect((await client(t.gis, await mintToken(t, 'retailer')).post(`/v2/diamonds/${id}/grading`, GRADING)).status).toBe(403);
    await publishDeleted(t, id, 2);
    await waitApplied(t, id, 2);
    expect(await api.post(`/v2/diamonds/${id}/grading`, GRADING)).toMatchObject({ status: 410, body: { reason: 'diamond_has_been_deleted', detail: null } });
  });

  it('412 once the Verified validation has expired (VALIDATION_EXPIRY_SECONDS)', async () => {
    const { api, id, validate } = await labWithDiamond();
    await validate();
    expect((await api.post(`/v2/diamonds/${id}/grading`, GRADING)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 3200));
    expect((await api.post(`/v2/diamonds/${id}/grading`, GRADING)).status).toBe(412);
  });
});
