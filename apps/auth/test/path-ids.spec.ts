import { startTestStack } from '@dtp/test-stack';
import { HOSTILE_PATH_SEGMENTS, refusedPathAnswer, TEST_ADMIN_TOKEN, TestStack, UNKNOWN_UUID } from '@dtp/testing';

/**
 * Every auth route with an id in its path (the admin API), with hostile values: the 404 of an unknown id (or a
 * 400/414 from the HTTP layer), JSON, never a 5xx.
 */
describe('auth: hostile ids in paths never reach the database', () => {
  let stack: TestStack;
  const call = async (method: string, p: string) => {
    const res = await fetch(`${stack.urls.auth}${p}`, { method, headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as unknown };
  };
  const PARTICIPANT = { message: 'participant not found', reason: 'participant_not_found' };
  const CLIENT = { message: 'client not found', reason: 'client_not_found' };
  const routes: [string, (id: string) => string, Record<string, unknown>][] = [
    ['GET', (id) => `/admin/participants/${id}`, PARTICIPANT],
    ['POST', (id) => `/admin/participants/${id}/credentials`, PARTICIPANT],
    ['POST', (id) => `/admin/clients/${id}/revoke`, CLIENT],
  ];

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('answers well-formed unknown ids with 404 (the baseline)', async () => {
    expect((await call('GET', `/admin/participants/${UNKNOWN_UUID}`)).status).toBe(404);
    expect((await call('POST', `/admin/participants/${UNKNOWN_UUID}/credentials`)).status).toBe(404);
    expect((await call('POST', '/admin/clients/no-such-client/revoke')).status).toBe(404);
  });

  it.each(HOSTILE_PATH_SEGMENTS)('refuses %s in every id of every route', async (_name, segment) => {
    const wrong: string[] = [];
    for (const [method, path, notFound] of routes) {
      const res = await call(method, path(segment));
      // A printable-ASCII client id is a well-formed one: it is looked up and answers the unknown-id 404, which
      // names it (JSON-escaped).
      const problem =
        res.status === 404 && notFound === CLIENT && (res.body as { reason?: string }).reason === 'client_not_found' ? null : refusedPathAnswer(res, notFound);
      if (problem) wrong.push(`${method} ${path(':id')}: ${problem}`);
    }
    expect(wrong).toEqual([]);
  });
});
