/**
 * The hand-written layer against a real HTTP server (node:http on a free port): retries and backoff, what is safe
 * to retry, Retry-After, typed errors, request ids. The services' schemas play no part here, so the clients are
 * viewed through a small paths type of their own.
 */
import type { Client } from 'openapi-fetch';
import { HeldPort } from '@dtp/testing';
import { backoffDelay, createDtpClient, DtpApiError, DtpNetworkError, isRetryEligible, parseRetryAfter, RetryInfo, unwrap } from '../src';
import { fakeJwt, Reply, ScriptedServer, SeenRequest, startScriptedServer } from './scripted-server';

interface Get {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
  requestBody?: never;
  responses: { 200: { headers: Record<string, unknown>; content: { 'application/json': { ok: boolean; n?: number } } } };
}
interface Send extends Omit<Get, 'requestBody'> {
  requestBody: { content: { 'application/json': { name: string } } };
}
interface TestPaths {
  '/things': { get: Get; post: Send; patch: Send; put: Send };
}

const token = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that issues tokens and answers /things with `script`; the client under test, fast retries. */
async function setup(script: (req: SeenRequest, n: number) => Reply, retry: Parameters<typeof createDtpClient>[0]['retry'] = {}) {
  await server?.close();
  server = await startScriptedServer((req, n) =>
    req.path === '/oauth/token' ? { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } } : script(req, n),
  );
  const retries: RetryInfo[] = [];
  const dtp = createDtpClient({
    authUrl: server.url,
    platformUrl: server.url,
    clientId: 'dtp_client',
    clientSecret: 's3cret',
    retry: { baseDelayMs: 5, maxDelayMs: 20, random: () => 0.5, onRetry: (i) => retries.push(i), ...retry },
  });
  const client = dtp.platform as unknown as Client<TestPaths>;
  const things = () => server!.seen.filter((r) => r.path.startsWith('/things'));
  return { dtp, client, things, retries };
}

describe('retries', () => {
  it('retries a GET on 503 with backoff and answers the data; one request id across the attempts', async () => {
    const { client, things, retries } = await setup((_req, n) => (n < 3 ? { status: 503, body: { message: 'busy' } } : { status: 200, body: { ok: true, n } }));
    const data = await unwrap(client.GET('/things'));
    expect(data).toEqual({ ok: true, n: 3 });
    expect(things()).toHaveLength(3);
    expect(new Set(things().map((r) => r.headers['x-request-id'])).size).toBe(1);
    expect(things()[0].headers.authorization).toBe(`Bearer ${token}`);
    expect(retries.map((r) => [r.attempt, r.status, r.delayMs])).toEqual([
      [1, 503, 3], // 0.5 * min(20, 5 * 2^0) = 2.5 -> 3
      [2, 503, 5], // 0.5 * min(20, 5 * 2^1) = 5
    ]);
  });

  it('honours Retry-After on 429 (waits at least that long)', async () => {
    const { client, things } = await setup((_req, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } } : { status: 200, body: { ok: true } },
    );
    const started = performance.now();
    await unwrap(client.GET('/things'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(things()).toHaveLength(2);
  });

  it('does not wait for a Retry-After past maxRetryAfterMs: the 429 is the answer, with its Retry-After', async () => {
    const { client, things } = await setup(() => ({ status: 429, headers: { 'retry-after': '120' }, body: { message: 'slow down' } }), {
      maxRetryAfterMs: 10_000,
    });
    const err = await unwrap(client.GET('/things')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DtpApiError);
    expect((err as DtpApiError).status).toBe(429);
    expect((err as DtpApiError).retryAfterSeconds).toBe(120);
    expect(things()).toHaveLength(1);
  });

  it('gives up after `retries` further attempts and answers the last error', async () => {
    const { client, things } = await setup(() => ({ status: 503, body: { message: 'down' } }), { retries: 2 });
    const err = (await unwrap(client.GET('/things')).catch((e: unknown) => e)) as DtpApiError;
    expect(err.status).toBe(503);
    expect(things()).toHaveLength(3);
  });

  it('never repeats a POST without an Idempotency-Key (503 or a dropped connection)', async () => {
    const { client, things } = await setup(() => ({ status: 503, body: { message: 'down' } }));
    const err = (await unwrap(client.POST('/things', { body: { name: 'a' } })).catch((e: unknown) => e)) as DtpApiError;
    expect([err.status, things().length]).toEqual([503, 1]);

    const dropped = await setup(() => 'drop');
    const netErr = await unwrap(dropped.client.POST('/things', { body: { name: 'a' } })).catch((e: unknown) => e);
    expect(netErr).toBeInstanceOf(DtpNetworkError);
    expect((netErr as DtpNetworkError).attempts).toBe(1);
    expect(dropped.things()).toHaveLength(1);
  });

  it('repeats a POST that carries an Idempotency-Key, with the same key and the same body', async () => {
    const { client, things } = await setup((_req, n) => (n === 1 ? 'drop' : n === 2 ? { status: 503 } : { status: 200, body: { ok: true } }));
    const data = await unwrap(client.POST('/things', { body: { name: 'ruby' }, headers: { 'Idempotency-Key': 'k-1' } }));
    expect(data).toEqual({ ok: true });
    expect(things().map((r) => [r.headers['idempotency-key'], r.body])).toEqual([
      ['k-1', '{"name":"ruby"}'],
      ['k-1', '{"name":"ruby"}'],
      ['k-1', '{"name":"ruby"}'],
    ]);
  });

  it('repeats a keyed PATCH and an unkeyed PUT on network errors', async () => {
    const { client, things } = await setup((_req, n) => (n === 1 ? 'drop' : { status: 200, body: { ok: true } }));
    await unwrap(client.PATCH('/things', { body: { name: 'x' }, headers: { 'Idempotency-Key': 'k-2' } }));
    await unwrap(client.PUT('/things', { body: { name: 'x' } }));
    expect(things().map((r) => r.method)).toEqual(['PATCH', 'PATCH', 'PUT', 'PUT']);
  });

  it('waits while the first request with the key is still running (409 idempotency_key_in_use)', async () => {
    const { client, things } = await setup((_req, n) =>
      n < 3 ? { status: 409, body: { message: 'in use', reason: 'idempotency_key_in_use' } } : { status: 200, body: { ok: true } },
    );
    await unwrap(client.POST('/things', { body: { name: 'x' }, headers: { 'Idempotency-Key': 'k-3' } }));
    expect(things()).toHaveLength(3);
  });

  it('does not retry other 409s', async () => {
    const { client, things } = await setup(() => ({ status: 409, body: { message: 'dup', reason: 'diamond_not_unique' } }));
    const err = (await unwrap(client.POST('/things', { body: { name: 'x' }, headers: { 'Idempotency-Key': 'k-4' } })).catch((e: unknown) => e)) as DtpApiError;
    expect([err.status, err.reason, things().length]).toEqual([409, 'diamond_not_unique', 1]);
  });

  it('retries an attempt that runs past timeoutMs', async () => {
    const { client, things } = await setup(
      (_req, n) => (n === 1 ? { status: 200, body: { ok: false }, delayMs: 2_000 } : { status: 200, body: { ok: true } }),
      { timeoutMs: 200 },
    );
    expect(await unwrap(client.GET('/things'))).toEqual({ ok: true });
    expect(things()).toHaveLength(2);
  });

  it('reports a service that cannot be reached as DtpNetworkError after every attempt', async () => {
    // a port no process can take meanwhile, with nothing listening at the URL
    const held = await HeldPort.hold();
    const dtp = createDtpClient({
      platformUrl: `http://${held.host}:${held.port}`,
      tokens: { getToken: async () => 't' },
      retry: { retries: 2, baseDelayMs: 1 },
    });
    const err = await unwrap((dtp.platform as unknown as Client<TestPaths>).GET('/things'))
      .catch((e: unknown) => e)
      .finally(() => held.release());
    expect(err).toBeInstanceOf(DtpNetworkError);
    expect((err as DtpNetworkError).attempts).toBe(3);
    expect((err as DtpNetworkError).message).toMatch(/ECONNREFUSED/);
  });
});

describe('typed errors', () => {
  it('a 422 becomes DtpApiError with the detail list, the request id and the method and URL', async () => {
    const detail = [{ loc: ['body', 'rough', 'carats'], msg: 'carats must be positive', type: 'greater_than' }];
    const { client } = await setup(() => ({ status: 422, headers: { 'x-request-id': 'req-42' }, body: { detail, message: 'Validation failed' } }));
    const err = (await unwrap(client.POST('/things', { body: { name: '' } })).catch((e: unknown) => e)) as DtpApiError;
    expect(err).toBeInstanceOf(DtpApiError);
    expect(err.status).toBe(422);
    expect(err.detail).toEqual(detail);
    expect(err.requestId).toBe('req-42');
    expect(err.method).toBe('POST');
    expect(err.url).toMatch(/\/things$/);
    expect(err.message).toContain('rough.carats carats must be positive');
  });

  it('a 409 carries its reason; a text body is kept as it came', async () => {
    const { client } = await setup((_req, n) =>
      n === 1 ? { status: 409, body: { message: 'in transit', reason: 'in_transit', diamond_ids: ['d1'] } } : { status: 500, body: 'boom' },
    );
    const conflict = (await unwrap(client.GET('/things')).catch((e: unknown) => e)) as DtpApiError;
    expect([conflict.reason, (conflict.body as { diamond_ids: string[] }).diamond_ids]).toEqual(['in_transit', ['d1']]);
    const text = (await unwrap(client.GET('/things')).catch((e: unknown) => e)) as DtpApiError;
    expect([text.status, text.body, text.reason]).toEqual([500, 'boom', undefined]);
  });
});

describe('retry rules', () => {
  it('only idempotent methods, and POST/PATCH with a non-empty Idempotency-Key, may be repeated', () => {
    const h = (key?: string) => new Headers(key === undefined ? {} : { 'Idempotency-Key': key });
    expect(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].map((m) => isRetryEligible(m, h()))).toEqual([true, true, true, true, true]);
    expect([isRetryEligible('POST', h()), isRetryEligible('PATCH', h()), isRetryEligible('POST', h(''))]).toEqual([false, false, false]);
    expect([isRetryEligible('POST', h('k')), isRetryEligible('patch', h('k'))]).toEqual([true, true]);
  });

  it('backoff: full jitter under a doubling ceiling capped at maxDelayMs; Retry-After plus at most one base delay', () => {
    const top = { baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999999 };
    expect([0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, undefined, top))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffDelay(3, undefined, { ...top, random: () => 0 })).toBe(0);
    expect(backoffDelay(0, 2, { ...top, random: () => 0.5 })).toBe(2050);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30);
    expect([parseRetryAfter(null), parseRetryAfter('soon'), parseRetryAfter('')]).toEqual([undefined, undefined, undefined]);
  });
});
