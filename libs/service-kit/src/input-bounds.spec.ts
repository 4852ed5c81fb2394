import { Body, Controller, Module, Post, Query, Req } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { Gauge, Counter } from 'prom-client';
import { createHttpApp } from './bootstrap';
import { NOT_UTF8, TakesFormBody } from './input-bounds';
import { newServiceContext } from './listen';
import { ServiceContext } from './kit.module';

class Leaf {
  @IsString() name!: string;
}

class Tagged {
  @IsOptional() @IsString() name?: string;
  @IsOptional() @IsObject() tags?: Record<string, unknown>;
  @IsOptional() @IsArray() @IsInt({ each: true }) @Min(1, { each: true }) counts?: number[];
  @IsOptional() @ValidateNested() @Type(() => Leaf) leaf?: Leaf;
}

class Search {
  @IsOptional() @IsString() q?: string;
}

@Controller('bounds')
class BoundsController {
  @Post('dto')
  dto(@Body() body: Tagged) {
    return { ok: true, keys: Object.keys(body) };
  }

  /** A route that reads the raw request (like the OAuth token endpoint): the depth bound still applies. */
  @Post('raw')
  raw(@Req() req: FastifyRequest) {
    return { ok: true, type: typeof req.body };
  }

  @Post('search')
  search(@Query() query: Search) {
    return { ok: true, q: query.q ?? null };
  }

  /** A route that reads form bodies (like the OAuth token endpoint and the passport's look-up form). */
  @Post('form')
  @TakesFormBody()
  form(@Req() req: FastifyRequest) {
    return { ok: true, body: req.body === undefined ? null : { ...(req.body as object) } };
  }
}

@Module({ controllers: [BoundsController] })
class BoundsModule {}

/** `{"a":{"a":...{}}}` as JSON text, `levels` objects in all. */
const objects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** `[[[...]]]` as JSON text, `levels` arrays in all. */
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

type Detail = { loc: (string | number)[]; msg: string; type: string };

async function freshApp(): Promise<{ app: NestFastifyApplication; ctx: ServiceContext }> {
  const ctx = newServiceContext('bounds-test', pino({ level: 'silent' }));
  const app = await createHttpApp({ ctx, module: BoundsModule, docs: { title: 't', description: 'd', version: '1' } });
  return { app, ctx };
}

describe('input bounds: JSON depth (iterative, before class-transformer)', () => {
  // The depth at which a recursive walk overflows rises as the JIT warms up, so the deepest bodies go first, each
  // to a fresh app whose first request it is.
  it.each([
    ['objects', 100_000, objects],
    ['arrays', 100_000, arrays],
    ['objects', 10_000, objects],
    ['arrays', 10_000, arrays],
    ['objects', 2_500, objects],
  ] as const)('%s nested %p levels: 422 json_too_deep on a fresh app, on a DTO route and on a raw route', async (_kind, levels, make) => {
    const { app } = await freshApp();
    try {
      const payload = make === objects ? `{"tags":${make(levels - 1)}}` : make(levels);
      for (const url of ['/bounds/dto', '/bounds/raw']) {
        const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 422 });
        const body = res.json() as { detail: Detail[]; message: string };
        expect(body.detail).toHaveLength(1);
        expect(body.detail[0].type).toBe('json_too_deep');
        expect(body.detail[0].msg).toBe('JSON nested more than 32 levels deep');
        // Named down to where it got too deep: body + 32 steps.
        expect(body.detail[0].loc).toHaveLength(33);
        expect(body.detail[0].loc.slice(0, 2)).toEqual(make === objects ? ['body', 'tags'] : ['body', 0]);
      }
    } finally {
      await app.close();
    }
  });

  describe('at the limit', () => {
    let app: NestFastifyApplication;
    beforeAll(async () => ({ app } = await freshApp()));
    afterAll(() => app.close());

    it('a body 32 levels deep is accepted, 33 is not', async () => {
      const ok = await app.inject({ method: 'POST', url: '/bounds/dto', headers: { 'content-type': 'application/json' }, payload: `{"tags":${objects(31)}}` });
      expect(ok.statusCode).toBe(201);
      expect(ok.json()).toEqual({ ok: true, keys: ['tags'] });
      const deep = await app.inject({
        method: 'POST',
        url: '/bounds/dto',
        headers: { 'content-type': 'application/json' },
        payload: `{"tags":${objects(32)}}`,
      });
      expect(deep.statusCode).toBe(422);
      expect((deep.json() as { detail: Detail[] }).detail).toEqual([
        { loc: ['body', 'tags', ...Array(31).fill('a')], msg: 'JSON nested more than 32 levels deep', type: 'json_too_deep' },
      ]);
      expect((await app.inject({ method: 'POST', url: '/bounds/raw', payload: arrays(32), headers: { 'content-type': 'application/json' } })).statusCode).toBe(
        201,
      );
      expect((await app.inject({ method: 'POST', url: '/bounds/raw', payload: arrays(33), headers: { 'content-type': 'application/json' } })).statusCode).toBe(
        422,
      );
    });

    it('a 1 MB+ deep body is refused by the body limit (413), not a 5xx', async () => {
      const res = await app.inject({ method: 'POST', url: '/bounds/dto', headers: { 'content-type': 'application/json' }, payload: arrays(1_000_000) });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toHaveProperty('message');
    });
  });
});

describe('the JSON body parser (registerJsonBodyParser)', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => ({ app } = await freshApp()));
  afterAll(() => app.close());
  const json = { 'content-type': 'application/json; charset=utf-8' };

  it('reads an empty body with the JSON header as no body, as without the header: an operation that takes none answers as it does without', async () => {
    // A client that sends Content-Type on every request (a session-wide header) was refused with 422 json_invalid.
    const withHeader = await app.inject({ method: 'POST', url: '/bounds/raw', headers: { ...json, 'content-length': '0' } });
    const without = await app.inject({ method: 'POST', url: '/bounds/raw' });
    expect([withHeader.statusCode, withHeader.json()]).toEqual([201, { ok: true, type: 'undefined' }]);
    expect([without.statusCode, without.json()]).toEqual([201, { ok: true, type: 'undefined' }]);
  });

  it('still leaves an operation that needs a body refusing an empty one, by its DTO, the same with and without the header', async () => {
    const withHeader = await app.inject({ method: 'POST', url: '/bounds/dto', headers: json, payload: '' });
    const without = await app.inject({ method: 'POST', url: '/bounds/dto' });
    expect(withHeader.statusCode).toBe(422);
    expect(withHeader.json()).toEqual(without.json());
    expect((withHeader.json() as { detail: Detail[] }).detail).toEqual([{ loc: ['body'], msg: 'Input should be a JSON object', type: 'missing' }]);
  });

  it('a body that is not UTF-8 is refused (422 json_invalid), not stored with replacement characters', async () => {
    // Until 2026-12-07 "\xff\xfe" arrived as "\ufffd\ufffd" and was stored so.
    for (const bytes of [Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]), Buffer.from('{"name":"\xe9"}', 'latin1')]) {
      const res = await app.inject({ method: 'POST', url: '/bounds/dto', headers: json, payload: bytes });
      expect(res.statusCode).toBe(422);
      expect((res.json() as { detail: Detail[] }).detail).toEqual([{ loc: ['body'], msg: `JSON decode error: ${NOT_UTF8}`, type: 'json_invalid' }]);
    }
    // The same text in UTF-8, a byte order mark and U+FFFD itself included, is taken.
    for (const text of ['{"name":"\u00e9"}', '\ufeff{"name":"\u00e9"}', '{"name":"\ufffd"}']) {
      const res = await app.inject({ method: 'POST', url: '/bounds/dto', headers: json, payload: Buffer.from(text, 'utf8') });
      expect([text, res.statusCode, res.json()]).toEqual([text, 201, { ok: true, keys: ['name'] }]);
    }
  });

  it('does not stretch that to a body of white space or a malformed one: those are still json_invalid', async () => {
    for (const payload of [' ', '\n', '{']) {
      const res = await app.inject({ method: 'POST', url: '/bounds/raw', headers: json, payload });
      expect([JSON.stringify(payload), res.statusCode, (res.json() as { detail: Detail[] }).detail[0].type]).toEqual([
        JSON.stringify(payload),
        422,
        'json_invalid',
      ]);
    }
  });
});

describe('form bodies (registerFormBodyParser)', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => ({ app } = await freshApp()));
  afterAll(() => app.close());
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it('reads a form on a route that takes forms, repeated fields as lists', async () => {
    const res = await app.inject({ method: 'POST', url: '/bounds/form', headers: form, payload: 'report_number=+2141%20438172&lab=GIA&lab=IGI' });
    expect([res.statusCode, res.json()]).toEqual([201, { ok: true, body: { report_number: ' 2141 438172', lab: ['GIA', 'IGI'] } }]);
  });

  it('refuses a form sent to any other route like XML: 422 content_type, naming the body', async () => {
    // Until 2026-12-07 it reached the DTO parsed as a form: JSON text became one member named after the whole text,
    // 422 extra_forbidden at body.'{"name":"x"}' (and a raw route got the parsed form).
    const xml = await app.inject({ method: 'POST', url: '/bounds/dto', headers: { 'content-type': 'application/xml' }, payload: '<name>x</name>' });
    // JSON sent without its Content-Type (curl's -d alone sends the form type), and a real form.
    for (const [url, payload] of [
      ['/bounds/dto', '{"name":"x"}'],
      ['/bounds/dto', 'name=x'],
      ['/bounds/raw', 'name=x'],
    ]) {
      const res = await app.inject({ method: 'POST', url, headers: form, payload });
      expect([url, payload, res.statusCode]).toEqual([url, payload, 422]);
      expect((res.json() as { detail: Detail[] }).detail).toEqual([
        { loc: ['body'], msg: 'content type application/x-www-form-urlencoded cannot be read here; send application/json', type: 'content_type' },
      ]);
    }
    expect((xml.json() as { detail: Detail[] }).detail[0].type).toBe('content_type');
  });

  it('reads an empty form body as no body, as an empty JSON body (curl -X POST -d "" sends the form type)', async () => {
    const raw = await app.inject({ method: 'POST', url: '/bounds/raw', headers: { ...form, 'content-length': '0' } });
    expect([raw.statusCode, raw.json()]).toEqual([201, { ok: true, type: 'undefined' }]);
    const dto = await app.inject({ method: 'POST', url: '/bounds/dto', headers: form, payload: '' });
    expect([dto.statusCode, (dto.json() as { detail: Detail[] }).detail]).toEqual([
      422,
      [{ loc: ['body'], msg: 'Input should be a JSON object', type: 'missing' }],
    ]);
    const taken = await app.inject({ method: 'POST', url: '/bounds/form', headers: form, payload: '' });
    expect([taken.statusCode, taken.json()]).toEqual([201, { ok: true, body: null }]);
  });
});

describe('input bounds: NUL and lone surrogates, and the 422 detail cap', () => {
  let app: NestFastifyApplication;
  let ctx: ServiceContext;
  beforeAll(async () => ({ app, ctx } = await freshApp()));
  afterAll(() => app.close());

  const post = (url: string, payload: string) => app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

  it('accepts ordinary Unicode, surrogate pairs included', async () => {
    const res = await post('/bounds/dto', JSON.stringify({ name: 'Ünïcødé \u{1F48E}', leaf: { name: 'ok' } }));
    expect(res.statusCode).toBe(201);
  });

  it('refuses NUL and lone surrogates in values and keys, naming each path', async () => {
    const res = await post('/bounds/dto', '{"name":"a\\u0000b","leaf":{"name":"\\ud800"},"tags":{"k\\udc00":1}}');
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: Detail[] }).detail).toEqual([
      { loc: ['body', 'name'], msg: 'must not contain the NUL character (U+0000)', type: 'string_invalid_characters' },
      { loc: ['body', 'leaf', 'name'], msg: 'must not contain a lone surrogate (invalid Unicode)', type: 'string_invalid_characters' },
      { loc: ['body', 'tags', 'k\udc00'], msg: 'key must not contain a lone surrogate (invalid Unicode)', type: 'string_invalid_characters' },
    ]);
  });

  it('refuses them in a query too', async () => {
    const ok = await app.inject({ method: 'POST', url: '/bounds/search?q=diamond' });
    expect(ok.json()).toEqual({ ok: true, q: 'diamond' });
    const res = await app.inject({ method: 'POST', url: '/bounds/search?q=a%00b' });
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: Detail[] }).detail).toEqual([
      { loc: ['query', 'q'], msg: 'must not contain the NUL character (U+0000)', type: 'string_invalid_characters' },
    ]);
  });

  it('refuses the keys the framework would drop without a word (constructor, toString, ...), in bodies, free-form members and queries', async () => {
    // Without the check, Nest deletes `constructor` and class-transformer leaves out `toString`: the handler would
    // see a body without them, a free-form member would lose them, and an unknown member would pass.
    const res = await post('/bounds/dto', JSON.stringify({ name: 'a', toString: 1, tags: { constructor: 'x', ok: { valueOf: 2, hasOwnProperty: true } } }));
    expect(res.statusCode).toBe(422);
    expect((res.json() as { detail: Detail[] }).detail).toEqual([
      { loc: ['body', 'toString'], msg: 'key "toString" is reserved (a name every JavaScript object has) and not accepted', type: 'key_reserved' },
      {
        loc: ['body', 'tags', 'constructor'],
        msg: 'key "constructor" is reserved (a name every JavaScript object has) and not accepted',
        type: 'key_reserved',
      },
      { loc: ['body', 'tags', 'ok', 'valueOf'], msg: 'key "valueOf" is reserved (a name every JavaScript object has) and not accepted', type: 'key_reserved' },
      {
        loc: ['body', 'tags', 'ok', 'hasOwnProperty'],
        msg: 'key "hasOwnProperty" is reserved (a name every JavaScript object has) and not accepted',
        type: 'key_reserved',
      },
    ]);
    const query = await app.inject({ method: 'POST', url: '/bounds/search?q=a&prototype=1' });
    expect(query.statusCode).toBe(422);
    expect((query.json() as { detail: Detail[] }).detail.map((d) => [d.loc, d.type])).toEqual([[['query', 'prototype'], 'key_reserved']]);
    // As values, and as parts of longer keys, the same words are ordinary text.
    const ok = await post('/bounds/dto', JSON.stringify({ name: 'constructor', tags: { toStringX: 'toString', my_constructor: 1 } }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ ok: true, keys: ['name', 'tags'] });
  });

  it('lists at most 50 errors and counts the rest', async () => {
    // 120 unknown fields: 120 errors.
    const many = await post('/bounds/dto', JSON.stringify(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`x${i}`, i]))));
    const manyBody = many.json() as { detail: Detail[]; detail_omitted: number; message: string };
    expect(many.statusCode).toBe(422);
    expect(manyBody.detail).toHaveLength(50);
    expect(manyBody.detail_omitted).toBe(70);
    expect(manyBody.message).toMatch(/; and 70 more$/);
    // Under the cap: no count.
    const few = (await post('/bounds/dto', JSON.stringify({ x: 1 }))).json() as Record<string, unknown>;
    expect(few.detail).toHaveLength(1);
    expect(few).not.toHaveProperty('detail_omitted');
  });

  it('readiness: events degraded while a consumer gauge says so, with the lag and the parked count', async () => {
    // No consumers: nothing about events.
    expect((await app.inject({ method: 'GET', url: '/health/ready' })).json()).toEqual({ status: 'ok', checks: {} });
    const registers = [ctx.metrics.registry];
    const labelNames = ['group', 'topic'];
    const degraded = new Gauge({ name: 'consumer_degraded', help: 'd', labelNames, registers });
    const lag = new Gauge({ name: 'consumer_lag_messages', help: 'l', labelNames, registers });
    const stuck = new Gauge({ name: 'consumer_stuck_partitions', help: 's', labelNames, registers });
    const parked = new Counter({ name: 'consumer_parked_total', help: 'p', labelNames: ['group', 'topic', 'reason'], registers });
    const labels = { group: 'search', topic: 'platform.diamonds.v1' };
    degraded.set(labels, 0);
    lag.set(labels, 0);
    stuck.set(labels, 0);
    parked.inc({ ...labels, reason: 'too_deep' });
    ctx.readiness.add('events', async () => undefined);
    const up = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({
      status: 'ok',
      checks: { events: 'up' },
      details: { events: { lag: 0, parked: 1, consumers: [{ ...labels, lag: 0, stuck_partitions: 0, parked: 1, degraded: false }] } },
    });

    degraded.set(labels, 1);
    stuck.set(labels, 1);
    lag.set(labels, 7);
    parked.inc({ ...labels, reason: 'retries_exhausted' });
    const down = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(down.statusCode).toBe(200);
    expect(down.json()).toMatchObject({
      status: 'degraded',
      checks: { events: 'degraded: search on platform.diamonds.v1 stuck (1 partition), lag 7, parked 2' },
      details: { events: { lag: 7, parked: 2 } },
    });

    // A transport that is down stays down (503), whatever the consumers say.
    ctx.readiness.add('events', async () => {
      throw new Error('broker unreachable');
    });
    const gone = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(gone.statusCode).toBe(503);
    expect(gone.json()).toMatchObject({ status: 'unavailable', checks: { events: 'down: broker unreachable' } });
  });
});
