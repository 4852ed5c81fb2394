import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TEST_AUDIENCES, TestStack } from '@dtp/testing';

type Json = Record<string, unknown>;

/**
 * Limits a hostile client can neither bypass nor turn against others (issue 12 item 3): the client address comes
 * from TRUSTED_PROXIES hops only, failures lock a (client_id, address) pair, issuance has its own budget.
 */

function tokenRequest(stack: TestStack, body: Json, forwardedFor?: string): Promise<Response> {
  return fetch(`${stack.urls.auth}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify(body),
  });
}

const creds = (c: Pick<ParticipantCredentials, 'client_id' | 'client_secret'>, secret = c.client_secret): Json => ({
  grant_type: 'client_credentials',
  client_id: c.client_id,
  client_secret: secret,
  audience: TEST_AUDIENCES.platform,
});

async function expect429(res: Response, mentions: string): Promise<void> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 429 });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = JSON.parse(text) as Json;
  expect(body).toEqual({ error: 'too_many_requests', error_description: expect.stringContaining(mentions) });
}

describe('without TRUSTED_PROXIES (the default), X-Forwarded-For does not change the client address', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_RATE_LIMIT_PER_IP: '3' } } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('a direct client rotating X-Forwarded-For is still limited as one address', async () => {
    for (let i = 1; i <= 3; i += 1) {
      expect((await tokenRequest(stack, { grant_type: 'password' }, `198.51.100.${i}`)).status).toBe(400);
    }
    await expect429(await tokenRequest(stack, { grant_type: 'password' }, '198.51.100.4'), 'address');
    await expect429(await tokenRequest(stack, { grant_type: 'password' }, '203.0.113.1, 198.51.100.5'), 'address');
    await expect429(await tokenRequest(stack, { grant_type: 'password' }), 'address');
  });
});

describe('without TRUSTED_PROXIES, a failure lockout cannot be escaped through X-Forwarded-For', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_FAILURE_LIMIT: '2' } } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('locks the pair after the failures, whatever address the header claims', async () => {
    const victim = await onboard(stack, 'producer');
    expect((await tokenRequest(stack, creds(victim, 'wrong-1'), '198.51.100.1')).status).toBe(401);
    expect((await tokenRequest(stack, creds(victim, 'wrong-2'), '198.51.100.2')).status).toBe(401);
    await expect429(await tokenRequest(stack, creds(victim, 'wrong-3'), '198.51.100.3'), 'failed');
  });
});

describe('behind a trusted proxy, only hops it vouches for are skipped', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TRUSTED_PROXIES: '127.0.0.1', TOKEN_RATE_LIMIT_PER_IP: '2' } } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('the rightmost untrusted entry is the client: rotating what it prepends does not help', async () => {
    expect((await tokenRequest(stack, { grant_type: 'password' }, '1.1.1.1, 198.51.100.7')).status).toBe(400);
    expect((await tokenRequest(stack, { grant_type: 'password' }, '2.2.2.2, 198.51.100.7')).status).toBe(400);
    await expect429(await tokenRequest(stack, { grant_type: 'password' }, '3.3.3.3, 198.51.100.7'), 'address');
    await expect429(await tokenRequest(stack, { grant_type: 'password' }, '198.51.100.7'), 'address');
    // another client behind the same proxy has its own budget
    expect((await tokenRequest(stack, { grant_type: 'password' }, '198.51.100.8')).status).toBe(400);
    // the proxy itself, with no X-Forwarded-For, is one more address
    expect((await tokenRequest(stack, { grant_type: 'password' })).status).toBe(400);
  });
});

describe('failed attempts lock (client_id, address); issuance has its own per-client budget', () => {
  let stack: TestStack;
  let victim: ParticipantCredentials;
  let other: ParticipantCredentials;
  const attacker = '198.51.100.66';
  const legitimate = '203.0.113.10';

  beforeAll(async () => {
    stack = await startTestStack({
      services: ['auth'],
      env: { auth: { TRUSTED_PROXIES: '127.0.0.0/8', TOKEN_FAILURE_LIMIT: '3', TOKEN_RATE_LIMIT_PER_CLIENT: '5', TOKEN_RATE_LIMIT_PER_IP: '1000' } },
    });
    [victim, other] = await Promise.all([onboard(stack, 'producer'), onboard(stack, 'producer')]);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('an attacker hammering a client_id with wrong secrets gets 429; the owner from another address still gets its tokens', async () => {
    for (let i = 0; i < 3; i += 1) expect((await tokenRequest(stack, creds(victim, `wrong-${i}`), attacker)).status).toBe(401);
    for (let i = 0; i < 5; i += 1) await expect429(await tokenRequest(stack, creds(victim, `wrong-more-${i}`), attacker), 'failed authentications');
    // the pair is locked: even the right secret from the attacker's address is refused for now
    await expect429(await tokenRequest(stack, creds(victim), attacker), 'failed authentications');
    // claiming the owner's address in front of its own does not help
    await expect429(await tokenRequest(stack, creds(victim, 'wrong'), `${legitimate}, ${attacker}`), 'failed authentications');

    // the owner, from its own address, is not affected: its full issuance budget (5) is there, failures did not count
    for (let i = 0; i < 5; i += 1) {
      const res = await tokenRequest(stack, creds(victim), legitimate);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).token_type).toBe('Bearer');
    }
    // past the issuance budget: 429 for this client, from any address
    await expect429(await tokenRequest(stack, creds(victim), legitimate), 'issued');
  });

  it('the lockout is per client_id: the attacker address can still authenticate another client', async () => {
    expect((await tokenRequest(stack, creds(other), attacker)).status).toBe(200);
  });

  it('failures below the limit do not lock, and successes do not count as failures', async () => {
    const c = await onboard(stack, 'producer');
    const from = '198.51.100.77';
    expect((await tokenRequest(stack, creds(c, 'wrong-a'), from)).status).toBe(401);
    expect((await tokenRequest(stack, creds(c, 'wrong-b'), from)).status).toBe(401);
    for (let i = 0; i < 3; i += 1) expect((await tokenRequest(stack, creds(c), from)).status).toBe(200);
    expect((await tokenRequest(stack, creds(c, 'wrong-c'), from)).status).toBe(401);
    await expect429(await tokenRequest(stack, creds(c, 'wrong-d'), from), 'failed authentications');
  });
});
