import { ValidationVerdict } from '@dtp/domain';
import { Body, Controller, Module, Post, ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import * as classValidator from 'class-validator';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { kitApp } from '../test/support/kit-app';
import { RequestValidationException } from './errors';
import { ApiValidationPipe } from './validation.pipe';

class Part {
  @IsInt() n!: number;
}
class Order {
  @IsString() name!: string;
  @IsOptional() @ValidateNested() @Type(() => Part) part?: Part;
}

@Controller('orders')
class OrdersController {
  @Post()
  create(@Body() body: Order) {
    return { name: body.name, part: body.part ?? null, isOrder: body instanceof Order, isPart: body.part instanceof Part };
  }
}

@Module({ controllers: [OrdersController] })
class OrdersModule {}

const VERDICT_CHECK = Symbol.for('dtp.validationVerdictCheck');
type Holder = { [VERDICT_CHECK]?: (d: unknown) => void };

describe('ApiValidationPipe: a body the verdict passes is not validated again; any other is, by class-validator', () => {
  let app: NestFastifyApplication;
  const installed = (globalThis as Holder)[VERDICT_CHECK];
  beforeAll(async () => {
    app = await kitApp('pipe-test', OrdersModule);
  });
  afterAll(() => app.close());
  afterEach(() => {
    (globalThis as Holder)[VERDICT_CHECK] = installed;
    jest.restoreAllMocks();
  });
  const post = (body: unknown) =>
    app.inject({ method: 'POST', url: '/orders', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

  it('as a running service does (no check installed): class-validator runs only for a body with an error', async () => {
    delete (globalThis as Holder)[VERDICT_CHECK];
    const validate = jest.spyOn(classValidator, 'validate');
    const ok = await post({ name: 'a', part: { n: 1 } });
    expect(ok.statusCode).toBe(201);
    // The handler gets the DTO classes, as before.
    expect(ok.json()).toEqual({ name: 'a', part: { n: 1 }, isOrder: true, isPart: true });
    expect(validate).not.toHaveBeenCalled();

    const bad = await post({ name: 'a', part: { n: 'x' } });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc)).toEqual([['body', 'part', 'n']]);
    expect(validate).toHaveBeenCalledTimes(1);

    const unknown = await post({ name: 'a', extra: true });
    expect(unknown.statusCode).toBe(422);
    expect(validate).toHaveBeenCalledTimes(2);
  });

  it('in tests: class-validator validates every body, and a verdict that disagrees with it is reported', async () => {
    const reported: unknown[] = [];
    (globalThis as Holder)[VERDICT_CHECK] = (d) => reported.push(d);
    const ok = await post({ name: 'a' });
    expect(ok.statusCode).toBe(201);
    expect(reported).toEqual([]);

    // A verdict that passes everything: the answer is still class-validator's, and the disagreement is reported.
    jest.spyOn(ValidationVerdict.prototype, 'passes').mockReturnValue(true);
    const bad = await post({ name: 7 });
    expect(bad.statusCode).toBe(422);
    expect(reported).toEqual([{ target: 'Order', passes: true, errors: 1 }]);
  });
});

describe("ApiValidationPipe: a parsed value skips ValidationPipe's walks for values JSON cannot make, with the same outcome", () => {
  class Tagged {
    @IsString() name!: string;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Part) parts?: Part[];
    @IsOptional() tags?: unknown;
  }
  const pipe = new ApiValidationPipe();
  const body = { type: 'body' as const, metatype: Tagged };
  /**
   * What Nest's own transform answers for the same JSON value, on a copy (it changes its input in place; a copy made
   * by JSON.parse, as structuredClone's objects come from outside Jest's realm and class-transformer would see them as
   * instances of another class).
   */
  const stock = (value: unknown) => settle(() => ValidationPipe.prototype.transform.call(pipe, JSON.parse(JSON.stringify(value)), body));
  const ours = (value: unknown) => settle(() => pipe.transform(value, body));
  afterEach(() => jest.restoreAllMocks());

  it('answers every parsed body as ValidationPipe.transform does (instances, errors), without calling it', async () => {
    const bodies = [
      { name: 'a' },
      { name: 'a', parts: [{ n: 1 }, { n: 2 }], tags: { x: [1, { y: null }], z: 'é\u{1F48E}' } },
      { name: 'a', parts: [] },
      { name: 7 },
      { name: 'a', parts: [{ n: 'x' }, { m: 1 }] },
      { name: 'a', parts: { n: 1 } },
      { name: 'a', extra: { deep: [1] } },
      { name: 'a', parts: [null, 3, 'x'] },
      {},
    ];
    const base = jest.spyOn(ValidationPipe.prototype, 'transform');
    for (const b of bodies) {
      const parsed = JSON.parse(JSON.stringify(b)) as unknown;
      const expected = await stock(parsed);
      base.mockClear();
      const got = await ours(parsed);
      expect(base).not.toHaveBeenCalled();
      expect(got).toStrictEqual(expected);
    }
    const ok = (await ours({ name: 'a', parts: [{ n: 1 }] })) as { value: Tagged };
    expect(ok.value).toBeInstanceOf(Tagged);
    expect(ok.value.parts![0]).toBeInstanceOf(Part);
    expect(Object.prototype.hasOwnProperty.call(ok.value, 'constructor')).toBe(false);
  });

  it('in tests: every instance plainToDto makes is made by class-transformer too, and one that differs is reported', async () => {
    const installed = (globalThis as Holder)[VERDICT_CHECK];
    const reported: unknown[] = [];
    (globalThis as Holder)[VERDICT_CHECK] = (d) => reported.push(d);
    try {
      await ours({ name: 'a', parts: [{ n: 1 }] });
      expect(reported).toEqual([]);
      // A @Type whose class changes from one call to the next: the two makers get different classes.
      let calls = 0;
      class Left {}
      class Right {}
      class Flip {
        @IsOptional() @Type(() => (calls++ % 2 === 0 ? Left : Right)) side?: unknown;
      }
      await settle(() => pipe.transform({ side: {} }, { type: 'body', metatype: Flip }));
      expect(reported).toEqual([
        { target: 'Flip', message: expect.stringMatching(/plainToDto made Flip \{ side: Left \{\} \}, class-transformer Flip \{ side: Right \{\} \}/) },
      ]);
    } finally {
      (globalThis as Holder)[VERDICT_CHECK] = installed;
    }
  });

  it('leaves a value JSON cannot make (an array with holes, bytes, a date, a class instance) to ValidationPipe.transform', async () => {
    const base = jest.spyOn(ValidationPipe.prototype, 'transform');
    const holes = { name: 'a', tags: { list: [1, , 3] } };
    const got = (await ours(holes)) as { value: Tagged };
    expect(base).toHaveBeenCalledTimes(1);
    // Nest closed the hole in place before class-transformer copied the array.
    expect(got.value.tags).toEqual({ list: [1, 3] });
    for (const odd of [
      { name: 'a', tags: Buffer.from('x') },
      { name: 'a', tags: { at: new Date(0) } },
      { name: 'a', tags: new Part() },
    ]) {
      base.mockClear();
      await ours(odd);
      expect(base).toHaveBeenCalledTimes(1);
    }
  });
});

/** A transform's outcome: its value, or the details of the 422 it threw. */
async function settle(run: () => Promise<unknown>): Promise<{ value: unknown } | { error: unknown }> {
  try {
    return { value: await run() };
  } catch (err) {
    return { error: err instanceof RequestValidationException ? err.details : err };
  }
}
