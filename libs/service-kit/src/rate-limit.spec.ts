import { CanActivate, Controller, ExecutionContext, Get, Injectable, Module, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiResponse } from '@nestjs/swagger';
import pino from 'pino';
import { createHttpApp } from './bootstrap';
import { newServiceContext } from './listen';
import { buildOpenApiDocument } from './openapi';
import { documentRateLimits, RateLimitModule, RateLimits, RateLimitSettings } from './rate-limit';

/**
 * The clock: only `Date` is faked (Jest's modern timers with everything else real), so rate-limiter-flexible's
 * windows, which it measures with Date.now(), end when the test says so; nothing waits on the wall clock.
 */
const NOT_DATE = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;
const fakeDate = () => jest.useFakeTimers({ doNotFake: [...NOT_DATE], now: new Date('2026-11-26T12:00:00Z') });
const advance = (seconds: number) => jest.setSystemTime(Date.now() + seconds * 1000);

const settings = (over: Partial<RateLimitSettings> = {}): RateLimitSettings => ({
  RATE_LIMIT_PER_CLIENT: 0,
  RATE_LIMIT_PER_IP: 0,
  RATE_LIMIT_WINDOW_SECONDS: 60,
  ...over,
});

describe('RateLimits', () => {
  beforeEach(fakeDate);
  afterEach(() => jest.useRealTimers());

  it('is off by default: nothing is counted', async () => {
    const limits = new RateLimits(settings());
    expect(limits.enabled).toBe(false);
    for (let i = 0; i < 100; i++) expect(await limits.take({ clientId: 'a', ip: '10.0.0.1' })).toBeUndefined();
  });

  it('counts per client id, then per address for requests without one, each with its own limit', async () => {
    const limits = new RateLimits(settings({ RATE_LIMIT_PER_CLIENT: 3, RATE_LIMIT_PER_IP: 2, RATE_LIMIT_WINDOW_SECONDS: 10 }));
    const a = [];
    for (let i = 0; i < 4; i++) a.push(await limits.take({ clientId: 'a', ip: '10.0.0.1' }));
    expect(a.map((o) => [o!.allowed, o!.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(a[3]!.headers).toEqual({ 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '10', 'RateLimit-Policy': '3;w=10' });
    // Client b, from the same address, has its own budget; so has the address itself (no token).
    expect((await limits.take({ clientId: 'b', ip: '10.0.0.1' }))!.allowed).toBe(true);
    expect((await limits.take({ ip: '10.0.0.1' }))!.remaining).toBe(1);
    expect((await limits.take({ ip: '10.0.0.1' }))!.allowed).toBe(true);
    expect((await limits.take({ ip: '10.0.0.1' }))!.allowed).toBe(false);
    expect((await limits.take({ ip: '10.0.0.2' }))!.allowed).toBe(true);
  });

  it('resets when the window is over, and says when that is', async () => {
    const limits = new RateLimits(settings({ RATE_LIMIT_PER_CLIENT: 1, RATE_LIMIT_WINDOW_SECONDS: 30 }));
    expect((await limits.take({ clientId: 'a', ip: '::1' }))!.allowed).toBe(true);
    advance(12);
    const refused = (await limits.take({ clientId: 'a', ip: '::1' }))!;
    expect([refused.allowed, refused.resetSeconds]).toEqual([false, 18]);
    advance(17.5);
    expect((await limits.take({ clientId: 'a', ip: '::1' }))!.allowed).toBe(false);
    advance(1);
    expect((await limits.take({ clientId: 'a', ip: '::1' }))!.allowed).toBe(true);
  });
});

/** Stands in for the JWT guard: `x-test-client` is the verified client id. */
@Injectable()
class TestCallerGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; caller?: { clientId: string } }>();
    if (req.headers['x-test-reject']) throw new UnauthorizedException('no token');
    const client = req.headers['x-test-client'];
    if (client) req.caller = { clientId: client };
    return true;
  }
}

@Controller('things')
class ThingsController {
  @Get()
  list() {
    return { ok: true };
  }

  @Get(':id')
  @ApiResponse({ status: 404, description: 'No such thing.' })
  one(): never {
    throw new NotFoundException('no such thing');
  }
}

function thingsModule(limits: RateLimitSettings) {
  @Module({ imports: [RateLimitModule.forRoot(limits)], controllers: [ThingsController], providers: [{ provide: APP_GUARD, useClass: TestCallerGuard }] })
  class ThingsModule {}
  return ThingsModule;
}

const docs = { title: 't', description: 'd', version: '1', transforms: [documentRateLimits] };

describe('rate limits over HTTP (RateLimitModule)', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    fakeDate();
    app = await createHttpApp({
      ctx: newServiceContext('rate-limit-test', pino({ level: 'silent' })),
      module: thingsModule(settings({ RATE_LIMIT_PER_CLIENT: 2, RATE_LIMIT_PER_IP: 3, RATE_LIMIT_WINDOW_SECONDS: 5 })),
      docs,
    });
  });
  afterAll(async () => {
    await app.close();
    jest.useRealTimers();
  });
  const get = (client?: string, url = '/things') => app.inject({ method: 'GET', url, headers: client ? { 'x-test-client': client } : {} });

  it('answers within the limit with the RateLimit headers, past it 429 with Retry-After in the error model, then recovers', async () => {
    const first = await get('a');
    expect(first.statusCode).toBe(200);
    expect([first.headers['ratelimit-limit'], first.headers['ratelimit-remaining'], first.headers['ratelimit-policy']]).toEqual(['2', '1', '2;w=5']);
    expect((await get('a')).statusCode).toBe(200);
    const refused = await get('a');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect([refused.headers['ratelimit-limit'], refused.headers['ratelimit-remaining'], refused.headers['ratelimit-reset']]).toEqual(['2', '0', '5']);
    expect(refused.json()).toEqual({ message: 'too many requests from this client: at most 2 per 5 s; retry in 5 s', reason: 'rate_limited' });
    // Another client is not limited by a's budget.
    expect((await get('b')).statusCode).toBe(200);
    advance(5.01);
    const again = await get('a');
    expect(again.statusCode).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe('1');
  });

  it('keys requests without a client id by address, and never limits /health', async () => {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await get()).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    expect((await get('c')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(undefined, '/health/live')).statusCode).toBe(200);
  });

  it('sends the RateLimit headers on a 4xx of a counted request too, and none on a 401 (answered before counting)', async () => {
    const missing = await get('d', '/things/x');
    expect([missing.statusCode, missing.headers['ratelimit-limit'], missing.headers['ratelimit-remaining']]).toEqual([404, '2', '1']);
    const unauthenticated = await app.inject({ method: 'GET', url: '/things', headers: { 'x-test-reject': '1' } });
    expect([unauthenticated.statusCode, unauthenticated.headers['ratelimit-limit']]).toEqual([401, undefined]);
  });

  it('documents the RateLimit headers on the 2xx and 4xx answers but 401, once in components', () => {
    const doc = buildOpenApiDocument(app, { ...docs, security: { tokenUrl: 'http://auth.test/oauth/token', audience: 'things' } });
    const refs = (response: unknown) =>
      Object.keys((response as { headers?: Record<string, unknown> }).headers ?? {}).filter((h) => h.startsWith('RateLimit-'));
    const all = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];
    const op = doc.paths['/things/{id}'].get!;
    expect(op.responses['401']).toBeDefined();
    expect([refs(doc.paths['/things'].get!.responses['200']), refs(op.responses['404']), refs(op.responses['401'])]).toEqual([all, all, []]);
    expect((op.responses['404'] as { headers: Record<string, unknown> }).headers['RateLimit-Limit']).toEqual({ $ref: '#/components/headers/RateLimit-Limit' });
    expect(Object.keys(doc.components?.headers ?? {})).toEqual(all);
  });

  it('documents the 429 and its headers on every operation', () => {
    const doc = buildOpenApiDocument(app, docs);
    const op = doc.paths['/things'].get!;
    expect(op.responses['429']).toMatchObject({
      headers: { 'Retry-After': {}, 'RateLimit-Limit': {}, 'RateLimit-Remaining': {}, 'RateLimit-Reset': {}, 'RateLimit-Policy': {} },
    });
  });
});

describe('rate limits off (the default)', () => {
  it('registers nothing: no headers, no 429', async () => {
    const app = await createHttpApp({ ctx: newServiceContext('rate-limit-off', pino({ level: 'silent' })), module: thingsModule(settings()), docs });
    try {
      for (let i = 0; i < 30; i++) {
        const res = await app.inject({ method: 'GET', url: '/things', headers: { 'x-test-client': 'a' } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });
});
