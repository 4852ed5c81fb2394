import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack, UNKNOWN_ID } from '@dtp/testing';

/**
 * Per-client rate limits through the real guard (libs/service-kit rate-limit.ts): a search client is keyed by the
 * client id its verified token proves, so one client past its limit does not limit another; requests without a
 * token (the public passport routes) are keyed by address. The window is long (60 s) and never waited for:
 * recovery is tested with a fake clock in libs/service-kit/src/rate-limit.spec.ts.
 */
describe('search: per-client rate limits (RATE_LIMIT_PER_CLIENT, RATE_LIMIT_PER_IP)', () => {
  let stack: TestStack;
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    stack = await startTestStack({
      services: ['auth', 'search'],
      env: { search: { RATE_LIMIT_PER_CLIENT: '3', RATE_LIMIT_PER_IP: '2', RATE_LIMIT_WINDOW_SECONDS: '60' } },
    });
    tokenA = (await participantWithToken(stack, 'non_participant', 'search')).token;
    tokenB = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });
  afterAll(async () => {
    await stack?.close();
  });

  const read = (token: string) => fetch(`${stack.urls.search}/v1/diamonds/${UNKNOWN_ID}`, { headers: { authorization: token } });

  it('limits client A past its budget with 429, Retry-After and the RateLimit headers; client B is not limited', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await read(tokenA));
    // Counted whatever the answer (here the 404 of an unknown diamond).
    expect(answers.map((r) => [r.status, r.headers.get('ratelimit-remaining')])).toEqual([
      [404, '2'],
      [404, '1'],
      [404, '0'],
    ]);
    const refused = await read(tokenA);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-limit')).toBe('3');
    expect(refused.headers.get('ratelimit-policy')).toBe('3;w=60');
    expect(await refused.json()).toMatchObject({ reason: 'rate_limited' });

    const other = await read(tokenB);
    expect(other.status).toBe(404);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('keys requests without a token by address, and a bad token is refused (401) before it is counted', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${stack.urls.search}/passport/${UNKNOWN_ID}`, { headers: { accept: 'application/json' } })).status);
    expect(statuses).toEqual([404, 404, 429]);
    // An unverified token claims nothing: 401 from the guard, not the limit of the client it names.
    expect((await read('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).status).toBe(401);
    expect((await fetch(`${stack.urls.search}/health/ready`)).status).toBe(200);
  });
});
