import { responseContractCheck, RunningService, setResponseContractCheck } from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { TEST_ADMIN_TOKEN, TestStack } from '@dtp/testing';

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const producer = (name: string) => JSON.stringify({ name, role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } });

describe('admin API on its own listener (ADMIN_PORT)', () => {
  let stack: TestStack;
  let adminUrl: string;
  const contractCheck = responseContractCheck();

  beforeAll(async () => {
    // This suite asks each listener for what the other serves, on purpose: a documented operation answering 404 on
    // the wrong port is outside the OpenAPI document, so this one app runs without the contract check.
    setResponseContractCheck(undefined);
    stack = await startTestStack({ services: ['auth'], env: { auth: { ADMIN_PORT: '0', ADMIN_TOKEN_FAILURE_LIMIT: '5' } } });
    adminUrl = (stack.services.auth as RunningService & { adminUrl: string }).adminUrl;
  });

  afterAll(async () => {
    await stack?.close();
    setResponseContractCheck(contractCheck);
  });

  it('the admin port onboards; the public port answers /admin/* with the 404 of an unknown path', async () => {
    expect(adminUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(adminUrl).not.toBe(stack.urls.auth);
    const created = await fetch(`${adminUrl}/admin/participants`, { method: 'POST', headers: admin, body: producer('Admin Port Mining') });
    expect(created.status).toBe(201);
    const { participant_id } = (await created.json()) as { participant_id: string };

    const publicPost = await fetch(`${stack.urls.auth}/admin/participants`, { method: 'POST', headers: admin, body: producer('Public Port Mining') });
    expect(publicPost.status).toBe(404);
    const unknown = await fetch(`${stack.urls.auth}/no-such-path`, { method: 'POST', headers: admin, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await publicPost.json()).toEqual({ message: 'Cannot POST /admin/participants' });
    expect((await fetch(`${stack.urls.auth}/admin/participants/${participant_id}`, { headers: admin })).status).toBe(404);
    expect((await fetch(`${adminUrl}/admin/participants/${participant_id}`, { headers: admin })).status).toBe(200);
  });

  it('the admin port serves nothing public (tokens, JWKS, docs), only /admin/* and /health/*', async () => {
    expect((await fetch(`${adminUrl}/.well-known/jwks.json`)).status).toBe(404);
    expect((await fetch(`${adminUrl}/docs/json`)).status).toBe(404);
    expect((await fetch(`${adminUrl}/health/live`)).status).toBe(200);
    expect((await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).status).toBe(200);
  });

  it('wrong admin tokens: 401 up to ADMIN_TOKEN_FAILURE_LIMIT, then 429 with Retry-After, even for the right token', async () => {
    const wrong = { ...admin, authorization: 'Bearer not-the-admin-token-at-all' };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await fetch(`${adminUrl}/admin/participants`, { method: 'POST', headers: wrong, body: producer('Guess') })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const locked = await fetch(`${adminUrl}/admin/participants`, { method: 'POST', headers: wrong, body: producer('Guess') });
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await locked.json()).toMatchObject({ reason: 'too_many_failures' });
    // The right token learns nothing while the address is locked out.
    const right = await fetch(`${adminUrl}/admin/participants`, { method: 'POST', headers: admin, body: producer('Locked Out Mining') });
    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toBeTruthy();
    // The token endpoint and the rest of the public API are not affected.
    expect((await fetch(`${stack.urls.auth}/.well-known/jwks.json`)).status).toBe(200);
  });
});

describe('admin API without ADMIN_PORT (npm start, as today)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('is served on the public port, and the right token still works after a few failures', async () => {
    expect(stack.services.auth).not.toHaveProperty('adminUrl');
    for (let i = 0; i < 3; i++)
      expect(
        (await fetch(`${stack.urls.auth}/admin/participants`, { method: 'POST', headers: { ...admin, authorization: 'Bearer wrong-token-x' }, body: '{}' }))
          .status,
      ).toBe(401);
    expect((await fetch(`${stack.urls.auth}/admin/participants`, { method: 'POST', headers: admin, body: producer('Same Port Mining') })).status).toBe(201);
  });
});
