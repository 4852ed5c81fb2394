import { Body, Controller, Get, Module, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { ConflictError, UnavailableError } from '@dtp/domain';
import { createHttpApp } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { newServiceContext } from './listen';
import { ServiceContext } from './kit.module';
import { BaseServiceConfig } from './service';

class Inner {
  @IsInt()
  @Min(1)
  count!: number;
}

class Payload {
  @IsString()
  name!: string;

  @ValidateNested()
  @Type(() => Inner)
  inner!: Inner;

  @IsOptional()
  @IsString()
  note?: string | null;
}

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: Payload) {
    return { ok: true, name: body.name, instance: body instanceof Payload };
  }

  /** Reads the parsed body itself: no pipe sees it. */
  @Post('raw')
  raw(@Req() request: FastifyRequest) {
    return { keys: Object.keys(request.body as object) };
  }

  @Get('boom')
  boom() {
    throw new Error('kaboom');
  }

  @Get('conflict')
  conflict() {
    throw new ConflictError('taken', 'already_taken');
  }

  @Get('away')
  away() {
    throw new UnavailableError('the store is away; retry later', 7);
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

describe('service kit HTTP behaviour', () => {
  let app: NestFastifyApplication;
  let ctx: ServiceContext;

  beforeAll(async () => {
    ctx = newServiceContext('kit-test', pino({ level: 'silent' }));
    app = await createHttpApp({ ctx, module: ThingsModule, docs: { title: 't', description: 'd', version: '1' } });
  });
  afterAll(() => app.close());

  const inject = (opts: Parameters<NestFastifyApplication['inject']>[0]) => app.inject(opts);

  it('accepts a valid body and hands the handler a DTO instance', async () => {
    const res = await inject({ method: 'POST', url: '/things', payload: { name: 'a', inner: { count: 2 } } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ ok: true, name: 'a', instance: true });
  });

  it('answers 422 with a detail entry per bad field, nested ones located from body', async () => {
    const res = await inject({ method: 'POST', url: '/things', payload: { name: 5, inner: { count: 0 } } });
    expect(res.statusCode).toBe(422);
    const { detail } = res.json() as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'name'], type: 'string_type' }),
        expect.objectContaining({ loc: ['body', 'inner', 'count'], type: 'greater_than_equal' }),
      ]),
    );
  });

  it('rejects unknown fields, at the top and nested', async () => {
    const res = await inject({ method: 'POST', url: '/things', payload: { name: 'a', inner: { count: 1, extra: 1 }, bogus: true } });
    expect(res.statusCode).toBe(422);
    const locs = (res.json() as { detail: { loc: unknown[]; type: string }[] }).detail.map((d) => `${d.loc.join('.')}:${d.type}`);
    expect(locs).toEqual(expect.arrayContaining(['body.bogus:extra_forbidden', 'body.inner.extra:extra_forbidden']));
  });

  it('names an unknown field once in the summary, as the multipart parser does', async () => {
    const res = await inject({ method: 'POST', url: '/things', payload: { name: 'a', inner: { count: 1, extra: 1 }, bogus: true } });
    const body = res.json() as { detail: { loc: unknown[]; msg: string }[]; message: string };
    expect(
      body.detail
        .filter((d) => d.msg === 'extra fields not permitted')
        .map((d) => d.loc.join('.'))
        .sort(),
    ).toEqual(['body.bogus', 'body.inner.extra']);
    expect(body.message.split('; ').sort()).toEqual(['bogus: extra fields not permitted', 'inner.extra: extra fields not permitted']);
  });

  it('answers 422 for malformed JSON and for a body that is not an object', async () => {
    const bad = await inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toHaveProperty('detail');
    const arr = await inject({ method: 'POST', url: '/things', payload: [1, 2] });
    expect(arr.statusCode).toBe(422);
    expect((arr.json() as { detail: { loc: unknown[] }[] }).detail[0].loc).toEqual(['body']);
  });

  it('answers a __proto__ key, or constructor.prototype, as a reserved key where it is (the JSON is well formed), as it does toString', async () => {
    const post = (payload: string) => inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload });
    const cases: [string, (string | number)[]][] = [
      ['{"name":"a","__proto__":{"polluted":1}}', ['body', '__proto__']],
      ['{"name":"a","inner":{"count":1,"constructor":{"prototype":{"polluted":1}}}}', ['body', 'inner', 'constructor', 'prototype']],
      ['[{"x":1},{"__proto__":null}]', ['body', 1, '__proto__']],
      ['{"name":"a","toString":1}', ['body', 'toString']],
    ];
    for (const [payload, loc] of cases) {
      const res = await post(payload);
      expect([payload, res.statusCode]).toEqual([payload, 422]);
      // Refused before any handler, also where no validation pipe reads the body.
      if (loc[1] !== 'toString') {
        const raw = await inject({ method: 'POST', url: '/things/raw', headers: { 'content-type': 'application/json' }, payload });
        expect([payload, raw.statusCode, raw.json()]).toEqual([payload, 422, res.json()]);
      }
      expect((res.json() as { detail: unknown[] }).detail).toEqual([
        { loc, msg: `key ${JSON.stringify(loc.at(-1))} is reserved (a name every JavaScript object has) and not accepted`, type: 'key_reserved' },
      ]);
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    // A constructor member without prototype is still the validation pipe's (a reserved key too); malformed JSON as before.
    expect((await post('{"name":"a","constructor":1}')).statusCode).toBe(422);
    expect(((await post('{"__proto__":')).json() as { detail: { type: string }[] }).detail[0].type).toBe('json_invalid');
  });

  it('answers 422 naming the content type for a body no parser takes (XML, multipart), not 415', async () => {
    for (const type of ['application/xml', 'multipart/form-data; boundary=x', 'text/csv']) {
      const res = await inject({ method: 'POST', url: '/things', headers: { 'content-type': type }, payload: '<a/>' });
      expect([type, res.statusCode]).toEqual([type, 422]);
      expect(res.json()).toEqual({
        detail: [{ loc: ['body'], msg: `content type ${type.split(';')[0]} cannot be read here; send application/json`, type: 'content_type' }],
        message: `content type ${type.split(';')[0]} cannot be read here; send application/json`,
      });
    }
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await inject({ method: 'GET', url: '/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json()).toHaveProperty('message');
  });

  it('hides internal errors behind a JSON 500 that carries the request id', async () => {
    const res = await inject({ method: 'GET', url: '/things/boom', headers: { 'x-request-id': 'req-123' } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ message: expect.stringContaining('Internal server error'), request_id: 'req-123' });
    expect(JSON.stringify(res.json())).not.toContain('kaboom');
  });

  it('answers a domain error with its exact body; a 5xx one also names the request id, with its Retry-After', async () => {
    const conflict = await inject({ method: 'GET', url: '/things/conflict', headers: { 'x-request-id': 'req-1' } });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.body).toBe('{"message":"taken","reason":"already_taken"}');
    const away = await inject({ method: 'GET', url: '/things/away', headers: { 'x-request-id': 'req-2' } });
    expect(away.statusCode).toBe(503);
    expect(away.headers['retry-after']).toBe('7');
    expect(away.body).toBe('{"message":"the store is away; retry later","request_id":"req-2"}');
  });

  it('echoes a given request id and generates one otherwise', async () => {
    const given = await inject({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'abc' } });
    expect(given.headers['x-request-id']).toBe('abc');
    const generated = await inject({ method: 'GET', url: '/health/live' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports readiness from its checks and fails while draining', async () => {
    expect((await inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    let up = false;
    ctx.readiness.add('dependency', async () => {
      if (!up) throw new Error('connection refused');
    });
    const down = await inject({ method: 'GET', url: '/health/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ status: 'unavailable', checks: { dependency: 'down: connection refused' } });
    up = true;
    expect((await inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    expect((await inject({ method: 'GET', url: '/health/live' })).json()).toEqual({ status: 'ok' });
  });

  it('exposes Prometheus metrics with the latency histogram by route template', async () => {
    await inject({ method: 'POST', url: '/things', payload: { name: 'a', inner: { count: 2 } } });
    const res = await inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/http_request_duration_seconds_count\{.*route="\/things".*\} \d+/);
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const json = await inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(Object.keys((json.json() as { paths: object }).paths)).toContain('/things');
    const page = await inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
  });

  it('drains: readiness turns 503 once shutdown starts', async () => {
    ctx.readiness.startDraining();
    const res = await inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(503);
    expect((res.json() as { checks: Record<string, string> }).checks.shutdown).toBe('draining');
  });
});

describe('config from env', () => {
  class Cfg extends BaseServiceConfig {
    override PORT: number = 3000;
  }

  it('converts and defaults values', () => {
    const c = loadConfig('svc', Cfg, { PORT: '4000' });
    expect(c.PORT).toBe(4000);
    expect(c.LOG_LEVEL).toBe('info');
    expect(loadConfig('svc', Cfg, {}).PORT).toBe(3000);
  });

  it('OUTBOX_RETENTION_HOURS: unset leaves the default to @dtp/events, 0 is allowed, a negative or fractional value is refused', () => {
    expect(loadConfig('svc', Cfg, {}).OUTBOX_RETENTION_HOURS).toBeUndefined();
    expect(loadConfig('svc', Cfg, { OUTBOX_RETENTION_HOURS: '0' }).OUTBOX_RETENTION_HOURS).toBe(0);
    expect(loadConfig('svc', Cfg, { OUTBOX_RETENTION_HOURS: '72' }).OUTBOX_RETENTION_HOURS).toBe(72);
    for (const bad of ['-1', '1.5', 'week']) expect(() => loadConfig('svc', Cfg, { OUTBOX_RETENTION_HOURS: bad })).toThrow(/OUTBOX_RETENTION_HOURS/);
  });

  it('OUTBOX_LINGER_MS: unset leaves the default to @dtp/events, 0 to 1000 ms, anything else is refused', () => {
    expect(loadConfig('svc', Cfg, {}).OUTBOX_LINGER_MS).toBeUndefined();
    expect(loadConfig('svc', Cfg, { OUTBOX_LINGER_MS: '0' }).OUTBOX_LINGER_MS).toBe(0);
    expect(loadConfig('svc', Cfg, { OUTBOX_LINGER_MS: '50' }).OUTBOX_LINGER_MS).toBe(50);
    for (const bad of ['-1', '2.5', '1001', 'soon']) expect(() => loadConfig('svc', Cfg, { OUTBOX_LINGER_MS: bad })).toThrow(/OUTBOX_LINGER_MS/);
  });

  it('names every bad variable in its error', () => {
    expect(() => loadConfig('svc', Cfg, { PORT: 'abc', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    try {
      loadConfig('svc', Cfg, { PORT: 'abc', LOG_LEVEL: 'loud' });
    } catch (err) {
      expect((err as Error).message).toMatch(/PORT/);
      expect((err as Error).message).toMatch(/LOG_LEVEL/);
      expect((err as Error).message).toMatch(/^svc: invalid configuration/);
    }
  });
});
