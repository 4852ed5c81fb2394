/**
 * Client-credentials tokens against a real HTTP server standing in for the auth service: the form request, one
 * token per audience, the cache, renewal before expiry (on an injected clock), one request for concurrent callers,
 * retries of the token request, a new token after a 401, and the admin token on auth's /admin routes only.
 */
import type { Client } from 'openapi-fetch';
import { ClientCredentialsTokenProvider, createDtpClient, DtpApiError, unwrap } from '../src';
import { fakeJwt, Reply, ScriptedServer, SeenRequest, startScriptedServer } from './scripted-server';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let issued = 0;
function issue(req: SeenRequest, expiresIn: number | null = 120): Reply {
  issued += 1;
  const form = new URLSearchParams(req.body);
  const access = fakeJwt({ aud: form.get('audience'), n: issued, exp: Math.floor(Date.now() / 1000) + 600 });
  return { status: 200, body: { access_token: access, token_type: 'Bearer', ...(expiresIn === null ? {} : { expires_in: expiresIn }) } };
}
const tokenRequests = () => server!.seen.filter((r) => r.path === '/oauth/token');
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { aud: string; n: number };

describe('ClientCredentialsTokenProvider', () => {
  it('asks with a form body (grant_type, client id and secret, audience) and caches one token per audience', async () => {
    server = await startScriptedServer((req) => issue(req));
    const tokens = new ClientCredentialsTokenProvider({ authUrl: `${server.url}/`, clientId: 'dtp_abc', clientSecret: 'p@ss word' });
    const a1 = await tokens.getToken('http://platform.test');
    const a2 = await tokens.getToken('http://platform.test');
    const b = await tokens.getToken('http://gis.test');
    expect(a1).toBe(a2);
    expect([claims(a1).aud, claims(b).aud]).toEqual(['http://platform.test', 'http://gis.test']);
    expect(tokenRequests()).toHaveLength(2);
    const first = tokenRequests()[0];
    expect(first.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(first.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'dtp_abc',
      client_secret: 'p@ss word',
      audience: 'http://platform.test',
    });
  });

  it('renews a token refreshBeforeExpirySeconds before expires_in runs out, not earlier', async () => {
    server = await startScriptedServer((req) => issue(req, 120));
    let now = 1_000_000;
    const tokens = new ClientCredentialsTokenProvider({
      authUrl: server.url,
      clientId: 'c',
      clientSecret: 's',
      refreshBeforeExpirySeconds: 30,
      now: () => now,
    });
    const t0 = await tokens.getToken('aud');
    now += 89_000; // 89 s of 120: still fresh (renewal due at 90 s)
    expect(await tokens.getToken('aud')).toBe(t0);
    now += 2_000; // 91 s: renewed
    const t1 = await tokens.getToken('aud');
    expect(t1).not.toBe(t0);
    expect(tokenRequests()).toHaveLength(2);
  });

  it('uses the exp claim when the answer has no expires_in; the margin is at most half the lifetime', async () => {
    server = await startScriptedServer((req) => issue(req, null));
    let now = Date.now();
    const tokens = new ClientCredentialsTokenProvider({
      authUrl: server.url,
      clientId: 'c',
      clientSecret: 's',
      refreshBeforeExpirySeconds: 60,
      now: () => now,
    });
    const t0 = await tokens.getToken('aud'); // exp = issue + 600 s
    now += 530_000;
    expect(await tokens.getToken('aud')).toBe(t0);
    now += 20_000; // 550 s: within 60 s of exp
    expect(await tokens.getToken('aud')).not.toBe(t0);
  });

  it('concurrent callers share one token request', async () => {
    server = await startScriptedServer((req) => ({ ...(issue(req) as object), delayMs: 50 }) as Reply);
    const tokens = new ClientCredentialsTokenProvider({ authUrl: server.url, clientId: 'c', clientSecret: 's' });
    const all = await Promise.all(Array.from({ length: 10 }, () => tokens.getToken('aud')));
    expect(new Set(all).size).toBe(1);
    expect(tokenRequests()).toHaveLength(1);
  });

  it('retries the token request on 429 and 503; a refused client is a DtpApiError with the OAuth error', async () => {
    server = await startScriptedServer((req, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '0' }, body: { error: 'too_many_requests' } } : n === 2 ? { status: 503 } : issue(req),
    );
    const tokens = new ClientCredentialsTokenProvider({ authUrl: server.url, clientId: 'c', clientSecret: 's', retry: { baseDelayMs: 1 } });
    expect(claims(await tokens.getToken('aud')).aud).toBe('aud');
    expect(tokenRequests()).toHaveLength(3);

    await server.close();
    server = await startScriptedServer(() => ({ status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } }));
    const refused = new ClientCredentialsTokenProvider({ authUrl: server.url, clientId: 'c', clientSecret: 'wrong' });
    const err = (await refused.getToken('aud').catch((e: unknown) => e)) as DtpApiError;
    expect(err).toBeInstanceOf(DtpApiError);
    expect([err.status, err.reason]).toEqual([401, 'invalid_client']);
    expect(err.message).toContain('client authentication failed');
    expect(tokenRequests()).toHaveLength(1);
  });
});

interface ProbePaths {
  '/probe': { get: { parameters: { query?: never }; responses: { 200: { content: { 'application/json': { aud: string } } } } } };
  '/admin/participants/{id}': { get: { parameters: { path: { id: string } }; responses: { 200: { content: { 'application/json': object } } } } };
  '/oauth/token': { get: { parameters: { query?: never }; responses: { 200: { content: { 'application/json': object } } } } };
}

describe('createDtpClient and tokens', () => {
  it('sends each service its own audience (defaults: the URL, search with /v1; or the configured ones)', async () => {
    server = await startScriptedServer((req) =>
      req.path === '/oauth/token' ? issue(req) : { status: 200, body: { aud: claims(String(req.headers.authorization).slice(7)).aud } },
    );
    const url = server.url;
    const dtp = createDtpClient({ authUrl: url, platformUrl: url, searchUrl: url, gisUrl: url, clientId: 'c', clientSecret: 's' });
    const probe = (c: unknown) => unwrap((c as Client<ProbePaths>).GET('/probe'));
    expect(await probe(dtp.platform)).toEqual({ aud: url });
    expect(await probe(dtp.search)).toEqual({ aud: `${url}/v1` });
    expect(await probe(dtp.gis)).toEqual({ aud: url });
    const custom = createDtpClient({ authUrl: url, gisUrl: url, clientId: 'c', clientSecret: 's', audiences: { gis: 'http://gis.test' } });
    expect(await probe(custom.gis)).toEqual({ aud: 'http://gis.test' });
  });

  it('after a 401 it fetches a new token and sends the request once more', async () => {
    server = await startScriptedServer((req, n) =>
      req.path === '/oauth/token' ? issue(req) : n === 1 ? { status: 401, body: { error: 'invalid_token' } } : { status: 200, body: { aud: 'ok' } },
    );
    const dtp = createDtpClient({ authUrl: server.url, platformUrl: server.url, clientId: 'c', clientSecret: 's' });
    expect(await unwrap((dtp.platform as unknown as Client<ProbePaths>).GET('/probe'))).toEqual({ aud: 'ok' });
    const probes = server.seen.filter((r) => r.path === '/probe');
    expect(probes).toHaveLength(2);
    expect(probes[0].headers.authorization).not.toBe(probes[1].headers.authorization);
    expect(tokenRequests()).toHaveLength(2);
  });

  it('a second 401 is the answer (no loop)', async () => {
    server = await startScriptedServer((req) =>
      req.path === '/oauth/token' ? issue(req) : { status: 401, body: { message: 'token has been revoked', error: 'invalid_token' } },
    );
    const dtp = createDtpClient({ authUrl: server.url, platformUrl: server.url, clientId: 'c', clientSecret: 's' });
    const err = (await unwrap((dtp.platform as unknown as Client<ProbePaths>).GET('/probe')).catch((e: unknown) => e)) as DtpApiError;
    expect([err.status, err.reason, server.seen.filter((r) => r.path === '/probe').length]).toEqual([401, 'invalid_token', 2]);
  });

  it('sends the admin token to /admin routes of auth only, and no token to the others', async () => {
    server = await startScriptedServer(() => ({ status: 200, body: {} }));
    const dtp = createDtpClient({ authUrl: server.url, adminToken: 'admin-123' });
    const auth = dtp.auth as unknown as Client<ProbePaths>;
    await unwrap(auth.GET('/admin/participants/{id}', { params: { path: { id: 'p1' } } }));
    await unwrap(auth.GET('/oauth/token'));
    expect(server.seen.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/admin/participants/p1', 'Bearer admin-123'],
      ['/oauth/token', undefined],
    ]);
  });

  it('a service without an address or credentials fails before any request, naming what is missing', async () => {
    const dtp = createDtpClient({ platformUrl: 'http://127.0.0.1:9' });
    expect(() => dtp.gis).toThrow('no address for the gis service: pass gisUrl');
    await expect(unwrap((dtp.platform as unknown as Client<ProbePaths>).GET('/probe'))).rejects.toThrow('no credentials for the platform API');
  });
});
