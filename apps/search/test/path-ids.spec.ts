import { Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { HOSTILE_PATH_SEGMENTS, participantWithToken, refusedPathAnswer, TestStack, UNKNOWN_HASH, UNKNOWN_ID } from '@dtp/testing';
import { diamondRecord, eventually, upserted } from './support';

/**
 * Every search route with hostile values in each path id (`GET /v1/diamonds/%00abc` once answered 500): the 404 of
 * an unknown id (or a 400/414 from the HTTP layer), JSON, never a 5xx.
 */
describe('search: hostile ids in paths never reach the database', () => {
  let stack: TestStack;
  let token: string;
  let known: string;

  const get = async (p: string) => {
    const res = await fetch(`${stack.urls.search}${p}`, { headers: { authorization: token } });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as unknown };
  };

  const DIAMOND = { message: 'diamond not found' };
  const FILE = { message: 'file not found' };
  const routes = (): [(id: string) => string, Record<string, unknown>][] => [
    [(id) => `/v1/diamonds/${id}`, DIAMOND],
    [(id) => `/v1/diamonds/${id}/history`, DIAMOND],
    [(id) => `/v1/diamonds/${id}/files/${UNKNOWN_HASH}`, DIAMOND],
    [(id) => `/v1/diamonds/${known}/files/${id}`, FILE],
  ];

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'search'] });
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
    const record = diamondRecord();
    known = record.diamond_id;
    await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: known, value: upserted(record, 1) }]);
    await eventually(async () => ((await get(`/v1/diamonds/${known}`)).status === 200 ? true : undefined), 'the known diamond in search');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers a well-formed unknown id with 404 (the baseline)', async () => {
    expect(await get(`/v1/diamonds/${UNKNOWN_ID}`)).toEqual({ status: 404, body: { message: `diamond ${UNKNOWN_ID} not found` } });
    expect((await get(`/v1/diamonds/${known}/files/${UNKNOWN_HASH}`)).status).toBe(404);
    expect((await get(`/v1/diamonds/${known}/files/${UNKNOWN_HASH.toUpperCase()}`)).status).toBe(404);
  });

  it.each(HOSTILE_PATH_SEGMENTS)('refuses %s in every id of every route', async (_name, segment) => {
    const wrong: string[] = [];
    for (const [path, notFound] of routes()) {
      const problem = refusedPathAnswer(await get(path(segment)), notFound);
      if (problem) wrong.push(`GET ${path(':id')}: ${problem}`);
    }
    expect(wrong).toEqual([]);
    // Still serving.
    expect((await get(`/v1/diamonds/${known}`)).status).toBe(200);
  });
});
