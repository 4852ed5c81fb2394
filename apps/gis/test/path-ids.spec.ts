import { HOSTILE_PATH_SEGMENTS, refusedPathAnswer, UNKNOWN_ID, UNKNOWN_UUID } from '@dtp/testing';
import { client, eligibleDiamond, GisTestStack, lab, startGis, VALIDATE_OK, VERIFY_OK } from './gis-helpers';

/**
 * Every GIS route with hostile values in each path id: the 404 `{detail}` of an unknown id (or a 400/414 from the
 * HTTP layer), JSON, never a 5xx.
 */
describe('gis: hostile ids in paths never reach the database', () => {
  let t: GisTestStack;
  let api: ReturnType<typeof client>;
  let known: string;

  const DIAMOND = { detail: 'diamond not found' };
  const REQUEST = { detail: 'validation request not found' };
  const GRADING = {
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
  };
  const routes = (): [method: 'get' | 'post', path: (id: string) => string, body: unknown, notFound: Record<string, unknown>][] => [
    ['post', (id) => `/v2/diamonds/${id}/verify`, VERIFY_OK, DIAMOND],
    ['post', (id) => `/v2/diamonds/${id}/validate-json`, VALIDATE_OK, DIAMOND],
    ['get', (id) => `/v2/diamonds/${id}/validate/historic`, undefined, DIAMOND],
    // Polling answers an unknown diamond like an unknown request.
    ['get', (id) => `/v2/diamonds/${id}/validate/${UNKNOWN_UUID}`, undefined, REQUEST],
    ['get', (id) => `/v2/diamonds/${known}/validate/${id}`, undefined, REQUEST],
    ['post', (id) => `/v2/diamonds/${id}/grading`, GRADING, DIAMOND],
  ];

  beforeAll(async () => {
    t = await startGis();
    api = client(t.gis, (await lab(t)).token);
    known = (await eligibleDiamond(t)).diamond_id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers well-formed unknown ids with 404 (the baseline)', async () => {
    for (const [method, path, body, notFound] of routes()) {
      const id = path(':id').endsWith('/:id') && notFound === REQUEST ? UNKNOWN_UUID : UNKNOWN_ID;
      const res = method === 'get' ? await api.get(path(id)) : await api.post(path(id), body);
      expect({ route: path(':id'), status: res.status, body: res.body }).toEqual({ route: path(':id'), status: 404, body: notFound });
    }
  });

  it.each(HOSTILE_PATH_SEGMENTS)('refuses %s in every id of every route', async (_name, segment) => {
    const wrong: string[] = [];
    for (const [method, path, body, notFound] of routes()) {
      const res = method === 'get' ? await api.get(path(segment)) : await api.post(path(segment), body);
      const problem = refusedPathAnswer(res, notFound);
      if (problem) wrong.push(`${method.toUpperCase()} ${path(':id')}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });
});
