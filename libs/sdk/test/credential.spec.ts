import { createDtpClient, DtpApiError, getOriginCredential } from '../src';
import { fakeJwt, ScriptedServer, startScriptedServer } from './scripted-server';

const token = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
const JWT = 'eyJhbGciOiJFZERTQSIsInR5cCI6InZjK2p3dCJ9.eyJ0eXBlIjpbXX0.c2ln';

describe('getOriginCredential', () => {
  let server: ScriptedServer | undefined;
  // A test may start more than one server: every one is closed (an open one keeps Jest from exiting).
  const started: ScriptedServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });

  async function client(answer: (n: number) => { status: number; headers?: Record<string, string>; body?: unknown }) {
    server = await startScriptedServer((req, n) => {
      if (req.path === '/oauth/token') return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
      return answer(n);
    });
    started.push(server);
    return createDtpClient({ authUrl: server.url, searchUrl: server.url, clientId: 'c', clientSecret: 's', retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  }

  it("answers the JWT text of search's /v1/diamonds/{id}/credential, asked with a search token and Accept application/vc+jwt", async () => {
    const dtp = await client(() => ({ status: 200, headers: { 'content-type': 'application/vc+jwt' }, body: `${JWT}\n` }));
    expect(await getOriginCredential(dtp, '01j0k6v8m2x4c9d7f3h5n1p0qr')).toBe(JWT);
    const call = server!.seen.find((r) => r.path.includes('/credential'))!;
    expect(call.path).toBe('/v1/diamonds/01j0k6v8m2x4c9d7f3h5n1p0qr/credential');
    expect(call.headers.authorization).toBe(`Bearer ${token}`);
    expect(call.headers.accept).toContain('application/vc+jwt');
  });

  it('retries a 503 while the log catches up, and throws DtpApiError for a 404', async () => {
    const dtp = await client((n) => (n === 1 ? { status: 503, headers: { 'retry-after': '0' }, body: { message: 'not yet' } } : { status: 200, body: JWT }));
    expect(await getOriginCredential(dtp, '01j0k6v8m2x4c9d7f3h5n1p0qr')).toBe(JWT);
    const missing = await client(() => ({ status: 404, body: { message: 'diamond x not found' } }));
    const err = await getOriginCredential(missing, '01j0k6v8m2x4c9d7f3h5n1p0qr').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DtpApiError);
    expect((err as DtpApiError).status).toBe(404);
  });
});
