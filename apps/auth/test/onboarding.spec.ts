import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestStack } from '@dtp/test-stack';
import { GuardedApp, onboard, participantWithToken, startGuardedApp, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER, TestStack, tokenFor } from '@dtp/testing';

describe('onboarding -> token -> guarded call', () => {
  let stack: TestStack;
  let platformLike: GuardedApp;

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth'] });
    platformLike = await startGuardedApp({ authUrl: stack.urls.auth!, audience: TEST_AUDIENCES.platform });
  });

  afterAll(async () => {
    await platformLike?.close();
    await stack?.close();
  });

  it('onboards a producer, issues a platform token and the guard accepts it', async () => {
    const creds = await onboard(stack, 'producer', { name: 'Acme Mining' });
    expect(creds.participant_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(creds.client_id).toEqual(expect.any(String));
    expect(Buffer.from(creds.client_secret, 'base64url')).toHaveLength(32);
    expect(creds.role).toBe('producer');

    const token = await tokenFor(stack, creds, 'platform');
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: TEST_ISSUER,
      sub: creds.client_id,
      aud: TEST_AUDIENCES.platform,
      client_id: creds.client_id,
      participant_id: creds.participant_id,
      role: 'producer',
      name: 'Acme Mining',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);

    const res = await fetch(`${platformLike.url}/probe/any`, { headers: { authorization: token } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ participantId: creds.participant_id, role: 'producer', clientId: creds.client_id, name: 'Acme Mining' });
  });

  it('participantWithToken gives ready-to-use auth headers', async () => {
    const p = await participantWithToken(stack, 'manufacturer', 'platform');
    const res = await fetch(`${platformLike.url}/probe/makers`, { headers: p.auth });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { participantId: string }).participantId).toBe(p.participant_id);
  });

  it('refuses onboarding without the admin token', async () => {
    const url = `${stack.urls.auth}/admin/participants`;
    const body = JSON.stringify({ name: 'X', role: 'producer' });
    const none = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ message: expect.stringContaining('admin token') });
    const wrong = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}x` }, body });
    expect(wrong.status).toBe(401);
  });

  it('publishes JWKS with the signing key', async () => {
    const creds = await onboard(stack, 'retailer');
    const token = await tokenFor(stack, creds, 'platform');
    const res = await fetch(`${stack.urls.auth}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: { kid: string; kty: string; crv: string; d?: string }[] };
    const kid = decodeProtectedHeader(token).kid;
    const key = jwks.keys.find((k) => k.kid === kid);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key!.d).toBeUndefined();
  });
});
