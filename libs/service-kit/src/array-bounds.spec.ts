/**
 * Arrays past their documented maximum are refused before per-item validation (issue 12, item 3, "response
 * amplification"): one 422 entry `{loc, msg, type: "too_long"}`, however long the array, found by walking the
 * DTO's class-validator metadata (nested DTOs included) before class-transformer and class-validator run.
 */
import { Body, Controller, Module, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BulkDeleteRequestDto, DELETE_LIMIT } from '@dtp/domain';
import { arrayOverflow } from './array-bounds';
import { kitApp } from '../test/support/kit-app';

class Item {
  @IsArray() @ArrayMaxSize(2) @IsString({ each: true }) tags!: string[];
}

class Inner {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2, { message: (args) => `${args.property} holds at most ${args.constraints[0]} (${args.targetName})` })
  list?: number[];
  @IsIn(['x', 'y']) kind!: string;
  /** Only validated when kind is x (class-validator skips it otherwise, and so does the pre-check). */
  @ValidateIf((o: Inner) => o.kind === 'x') @IsArray() @ArrayMaxSize(1) only_when_x?: number[];
}

class Outer {
  @IsArray() @ArrayMaxSize(3, { message: '$property: at most $constraint1, got $value' }) @IsInt({ each: true }) ids!: number[];
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @ValidateNested({ each: true }) @Type(() => Item) items?: Item[];
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}

class ListQuery {
  @IsOptional() @IsArray() @ArrayMaxSize(2) @IsString({ each: true }) tag?: string[];
}

@Controller('bounded')
class BoundedController {
  @Post('bulk')
  bulk(@Body() body: BulkDeleteRequestDto) {
    return { entries: body.diamonds.length };
  }

  @Post('outer')
  outer(@Body() body: Outer) {
    return { ok: true, ids: body.ids.length };
  }

  @Post('list')
  list(@Query() query: ListQuery) {
    return { tags: query.tag ?? [] };
  }
}

@Module({ controllers: [BoundedController] })
class BoundedModule {}

type Detail = { loc: (string | number)[]; msg: string; type: string };

describe('arrays past their @ArrayMaxSize', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await kitApp('bounded', BoundedModule);
  });
  afterAll(() => app.close());

  const post = (url: string, payload: unknown) =>
    app.inject({ method: 'POST', url, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  const details = (res: { json(): unknown }) => (res.json() as { detail: Detail[] }).detail;

  it('bulk delete: 100,000 entries in a ~300 KB body get one 422 entry, not one (or 50 plus a count) per item', async () => {
    const entries = Array.from({ length: 100_000 }, () => ({}));
    const body = JSON.stringify({ diamonds: entries });
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await post('/bounded/bulk', { diamonds: entries });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      detail: [{ loc: ['body', 'diamonds'], msg: `diamonds must contain at most ${DELETE_LIMIT} entries`, type: 'too_long' }],
      message: `diamonds: diamonds must contain at most ${DELETE_LIMIT} entries`,
    });
  });

  it('bulk delete: 1,001 valid entries, the same single entry; 1,000 pass', async () => {
    const entry = (i: number) => ({ diamond_id: `d${String(i).padStart(25, '0')}` });
    const over = await post('/bounded/bulk', { diamonds: Array.from({ length: DELETE_LIMIT + 1 }, (_, i) => entry(i)) });
    expect(over.statusCode).toBe(422);
    expect(details(over)).toEqual([{ loc: ['body', 'diamonds'], msg: expect.stringContaining(`${DELETE_LIMIT}`), type: 'too_long' }]);
    const at = await post('/bounded/bulk', { diamonds: Array.from({ length: DELETE_LIMIT }, (_, i) => entry(i)) });
    expect([at.statusCode, at.json()]).toEqual([201, { entries: DELETE_LIMIT }]);
  });

  it('within the bound, items are still validated one by one', async () => {
    const res = await post('/bounded/bulk', { diamonds: [{}, { diamond_id: 5 }] });
    expect(res.statusCode).toBe(422);
    expect(details(res).map((d) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.diamonds.0.diamond_id', 'body.diamonds.1.diamond_id']));
  });

  it('finds the bound in nested DTOs, and locates it by index', async () => {
    const items = [{ tags: ['a'] }, { tags: ['a', 'b', 'c', 'd'] }, ...Array.from({ length: 900 }, () => ({ tags: 1 }))];
    const res = await post('/bounded/outer', { ids: [1], items });
    expect(res.statusCode).toBe(422);
    expect(details(res)).toEqual([{ loc: ['body', 'items', 1, 'tags'], msg: 'tags must contain no more than 2 elements', type: 'too_long' }]);
    const inner = await post('/bounded/outer', { ids: [1], inner: { kind: 'y', list: [1, 2, 3] } });
    expect(details(inner)).toEqual([{ loc: ['body', 'inner', 'list'], msg: 'list holds at most 2 (Inner)', type: 'too_long' }]);
  });

  it('uses the declared message, without quoting the array', async () => {
    const res = await post('/bounded/outer', { ids: Array.from({ length: 100_000 }, (_, i) => i) });
    expect(details(res)).toEqual([{ loc: ['body', 'ids'], msg: 'ids: at most 3, got a list of 100000 items', type: 'too_long' }]);
    expect(res.body.length).toBeLessThan(500);
  });

  it('leaves members alone that class-validator would skip (@ValidateIf false), and valid bodies pass', async () => {
    const skipped = await post('/bounded/outer', { ids: [1, 2], inner: { kind: 'y', only_when_x: [1, 2, 3] } });
    expect([skipped.statusCode, skipped.json()]).toEqual([201, { ok: true, ids: 2 }]);
    const checked = await post('/bounded/outer', { ids: [1, 2], inner: { kind: 'x', only_when_x: [1, 2, 3] } });
    expect(details(checked)).toEqual([{ loc: ['body', 'inner', 'only_when_x'], msg: expect.any(String), type: 'too_long' }]);
  });

  it('applies to query DTOs too', async () => {
    const res = await app.inject({ method: 'POST', url: '/bounded/list?tag=a&tag=b&tag=c' });
    expect(res.statusCode).toBe(422);
    expect(details(res)).toEqual([{ loc: ['query', 'tag'], msg: expect.any(String), type: 'too_long' }]);
    const ok = await app.inject({ method: 'POST', url: '/bounded/list?tag=a&tag=b' });
    expect([ok.statusCode, ok.json()]).toEqual([201, { tags: ['a', 'b'] }]);
  });
});

describe('arrayOverflow', () => {
  it('is null for values it does not describe', () => {
    for (const value of [null, undefined, 5, 'x', [1, 2], {}]) expect(arrayOverflow(value, Outer, ['body'])).toBeNull();
    expect(arrayOverflow({ ids: [1, 2, 3, 4] }, Object, ['body'])).toBeNull();
  });

  it('finds an over-long array before looking at its items', () => {
    const items = Array.from({ length: 100_000 }, () => ({ tags: ['a'] }));
    items.push({ tags: ['a', 'b', 'c'] });
    // items itself is over its 1,000 bound: that is the answer, not the over-long tags of its last item.
    expect(arrayOverflow({ ids: [], items }, Outer, ['body'])?.loc).toEqual(['body', 'items']);
  });
});
