import { startTestStack } from '@dtp/test-stack';
import { onboard, ParticipantCredentials, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';
import { AuthConfig } from '../src/config';
import { VERIFIED_SECRET_CACHE_MAX, VerifiedSecretCache } from '../src/credentials/verified-secret-cache';

/**
 * The verified-secret cache of the token endpoint (#17): a repeat client skips scrypt; an unknown client id and a
 * wrong secret still cost one scrypt each (the same work, so no timing oracle); a revocation refuses at once.
 * The work done is read from auth_client_secret_checks_total{outcome="scrypt"|"cached"} rather than from the
 * clock, so the test does not depend on the machine's speed.
 */
describe('token endpoint: verified-secret cache', () => {
  let stack: TestStack;
  let authUrl: string;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    authUrl = stack.urls.auth!;
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function checks(): Promise<{ scrypt: number; cached: number }> {
    const text = await (await fetch(`${authUrl}/metrics`)).text();
    const read = (outcome: string) =>
      Number(new RegExp(`^auth_client_secret_checks_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    return { scrypt: read('scrypt'), cached: read('cached') };
  }
  /** The checks one call did (calls run one at a time in this file). */
  async function work(call: () => Promise<Response>): Promise<{ status: number; scrypt: number; cached: number }> {
    const before = await checks();
    const res = await call();
    await res.arrayBuffer();
    const after = await checks();
    return { status: res.status, scrypt: after.scrypt - before.scrypt, cached: after.cached - before.cached };
  }
  const token = (client_id: string, client_secret: string) => () =>
    fetch(`${authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id, client_secret, audience: TEST_AUDIENCES.platform }),
    });

  it('verifies a client secret with scrypt once, then answers its repeat requests from the cache', async () => {
    const p: ParticipantCredentials = await onboard(stack, 'producer');
    expect(await work(token(p.client_id, p.client_secret))).toEqual({ status: 200, scrypt: 1, cached: 0 });
    expect(await work(token(p.client_id, p.client_secret))).toEqual({ status: 200, scrypt: 0, cached: 1 });
    expect(await work(token(p.client_id, p.client_secret))).toEqual({ status: 200, scrypt: 0, cached: 1 });
  });

  it('a wrong secret for a known (cached) client and an unknown client id each cost exactly one scrypt', async () => {
    const p = await onboard(stack, 'producer');
    await work(token(p.client_id, p.client_secret));
    const wrong = await work(token(p.client_id, `${p.client_secret}x`));
    const unknown = await work(token('dtp_no_such_client_0123456789', p.client_secret));
    expect(wrong).toEqual({ status: 401, scrypt: 1, cached: 0 });
    expect(unknown).toEqual(wrong);
    // A wrong secret is never remembered: trying it again costs scrypt again.
    expect(await work(token(p.client_id, `${p.client_secret}x`))).toEqual({ status: 401, scrypt: 1, cached: 0 });
  });

  it('refuses a revoked client at once, although its secret was cached', async () => {
    const p = await onboard(stack, 'producer');
    await work(token(p.client_id, p.client_secret));
    expect((await work(token(p.client_id, p.client_secret))).cached).toBe(1);
    const revoke = await fetch(`${authUrl}/admin/clients/${p.client_id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(revoke.status).toBe(204);
    expect(await work(token(p.client_id, p.client_secret))).toEqual({ status: 401, scrypt: 1, cached: 0 });
  });
});

describe('token endpoint: verified-secret cache turned off (TOKEN_SECRET_CACHE_SECONDS=0)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'], env: { auth: { TOKEN_SECRET_CACHE_SECONDS: '0' } } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('pays scrypt on every request', async () => {
    const p = await onboard(stack, 'producer');
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: p.client_id,
      client_secret: p.client_secret,
      audience: TEST_AUDIENCES.platform,
    });
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(`${stack.urls.auth}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
    }
    const text = await (await fetch(`${stack.urls.auth}/metrics`)).text();
    expect(text).toMatch(/^auth_client_secret_checks_total\{[^}]*outcome="scrypt"[^}]*\} 3$/m);
    expect(text).not.toMatch(/outcome="cached"[^}]*\} [1-9]/);
  });
});

describe('VerifiedSecretCache', () => {
  const config = (seconds: number) => Object.assign(new AuthConfig(), { TOKEN_SECRET_CACHE_SECONDS: seconds });

  it('remembers a (client, secret) pair for the TTL, against the same stored hash only', () => {
    const cache = new VerifiedSecretCache(config(60));
    cache.remember('c1', 's1', 'hash-a', 1_000);
    expect(cache.has('c1', 's1', 'hash-a', 1_000 + 59_999)).toBe(true);
    expect(cache.has('c1', 's2', 'hash-a', 2_000)).toBe(false);
    expect(cache.has('c2', 's1', 'hash-a', 2_000)).toBe(false);
    expect(cache.has('c1', 's1', 'hash-b', 2_000)).toBe(false);
    // the mismatch above dropped the entry
    expect(cache.has('c1', 's1', 'hash-a', 2_000)).toBe(false);
    cache.remember('c1', 's1', 'hash-a', 1_000);
    expect(cache.has('c1', 's1', 'hash-a', 61_000)).toBe(false);
  });

  it('forgets a client on revocation, keeps at most VERIFIED_SECRET_CACHE_MAX entries, holds nothing with TTL 0', () => {
    const cache = new VerifiedSecretCache(config(60));
    cache.remember('c1', 's1', 'h', 0);
    cache.remember('c1', 's1-old', 'h', 0);
    cache.remember('c2', 's2', 'h', 0);
    cache.forget('c1');
    expect([cache.has('c1', 's1', 'h', 1), cache.has('c1', 's1-old', 'h', 1), cache.has('c2', 's2', 'h', 1)]).toEqual([false, false, true]);

    const full = new VerifiedSecretCache(config(60));
    for (let i = 0; i <= VERIFIED_SECRET_CACHE_MAX; i += 1) full.remember(`c${i}`, 's', 'h', 0);
    expect(full.size).toBe(VERIFIED_SECRET_CACHE_MAX);
    expect(full.has('c0', 's', 'h', 1)).toBe(false);
    expect(full.has(`c${VERIFIED_SECRET_CACHE_MAX}`, 's', 'h', 1)).toBe(true);

    const off = new VerifiedSecretCache(config(0));
    off.remember('c1', 's1', 'h', 0);
    expect([off.size, off.has('c1', 's1', 'h', 0)]).toEqual([0, false]);
  });
});
