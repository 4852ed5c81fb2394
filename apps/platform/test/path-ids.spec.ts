import { HOSTILE_PATH_SEGMENTS, ParticipantWithToken, refusedPathAnswer, UNKNOWN_ID, UNKNOWN_UUID } from '@dtp/testing';
import { call, outboxCount, participant, PlatformFixture, register, startPlatform } from './helpers';

/**
 * Every platform route that takes an id in its path, with hostile values in each id: the route's 404 (or a 400
 * from the HTTP layer for bytes that are not valid percent-encoded UTF-8), JSON, never a 5xx, nothing written.
 */
describe('platform: hostile ids in paths never reach the database', () => {
  let f: PlatformFixture;
  let maker: ParticipantWithToken;
  let known: string;

  const DIAMOND = { message: 'diamond not found' };
  const SHIPMENT = { message: 'shipment not found' };
  const GRADING = { message: 'graded measurement not found' };
  const cuts = {
    cuts: [
      { participant_id: 'C1', rough: { carats: 0.1 } },
      { participant_id: 'C2', rough: { carats: 0.1 } },
    ],
  };

  // [method, path with {id} where the hostile value goes, body, the 404 body]
  const routes = (): [string, (id: string) => string, unknown, Record<string, unknown>][] => [
    ['POST', (id) => `/diamonds/${id}/unlock`, undefined, DIAMOND],
    ['POST', (id) => `/diamonds/${id}/destroy`, undefined, DIAMOND],
    ['POST', (id) => `/diamonds/${id}/split`, cuts, DIAMOND],
    ['GET', (id) => `/diamonds/${id}/graded-measurements`, undefined, DIAMOND],
    ['POST', (id) => `/diamonds/${id}/graded-measurements`, { carats: 1 }, DIAMOND],
    ['PATCH', (id) => `/diamonds/${id}/${UNKNOWN_UUID}/select`, undefined, DIAMOND],
    ['PATCH', (id) => `/diamonds/${id}/${UNKNOWN_UUID}/deselect`, undefined, DIAMOND],
    ['PATCH', (id) => `/diamonds/${known}/${id}/select`, undefined, GRADING],
    ['PATCH', (id) => `/diamonds/${known}/${id}/deselect`, undefined, GRADING],
    ['POST', (id) => `/v2/transfer/in/${id}/accept`, { diamond_ids: [UNKNOWN_ID] }, SHIPMENT],
    ['POST', (id) => `/v2/transfer/in/${id}/reject`, { diamond_ids: [UNKNOWN_ID] }, SHIPMENT],
    ['POST', (id) => `/transfer/in/${id}/reject`, { diamond_ids: [UNKNOWN_ID] }, SHIPMENT],
  ];

  beforeAll(async () => {
    f = await startPlatform();
    maker = await participant(f, 'manufacturer');
    known = (await register(f, maker)).diamond_id;
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers every route the 404 of an unknown id for a well-formed unknown id (the baseline)', async () => {
    for (const [method, path, body, notFound] of routes()) {
      const id = notFound === GRADING ? UNKNOWN_UUID : UNKNOWN_ID;
      const res = await call(f, method, path(id), maker.token, body);
      expect({ route: path(':id'), status: res.status, body: res.body }).toEqual({ route: path(':id'), status: 404, body: notFound });
    }
  });

  it.each(HOSTILE_PATH_SEGMENTS)('refuses %s in every id of every route', async (_name, segment) => {
    const before = await outboxCount(f);
    const wrong: string[] = [];
    for (const [method, path, body, notFound] of routes()) {
      const res = await call(f, method, path(segment), maker.token, body);
      const problem = refusedPathAnswer(res, notFound);
      if (problem) wrong.push(`${method} ${path(':id')}: ${problem}`);
    }
    // Files: the id is checked before the multipart body is read.
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('x')]), 'x.jpg');
    const up = await fetch(`${f.url}/diamonds/${segment}/files/image`, { method: 'POST', headers: { authorization: maker.token }, body: form });
    const problem = refusedPathAnswer({ status: up.status, body: await up.json() }, DIAMOND);
    if (problem) wrong.push(`POST /diamonds/:id/files/image: ${problem}`);
    expect(wrong).toEqual([]);
    expect(await outboxCount(f)).toBe(before);
  });

  it('refuses hostile query values of the shipment lists with 422 naming the parameter', async () => {
    for (const list of ['/v2/shipment/inbound', '/v2/shipment/outbound']) {
      for (const [param, value] of [
        ['page', '%00'],
        ['page', "1'%20OR%201=1"],
        ['page_size', '9'.repeat(400)],
        ['shipment_type', '%00rough'],
        ['shipment_type', 'a'.repeat(4096)],
      ]) {
        const res = await call<{ detail: { loc: string[] }[] }>(f, 'GET', `${list}?${param}=${value}`, maker.token);
        expect({ list, param, status: res.status }).toEqual({ list, param, status: 422 });
        expect(res.body.detail.map((d) => d.loc.join('.'))).toContain(`query.${param}`);
      }
    }
  });
});
