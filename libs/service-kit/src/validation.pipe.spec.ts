import { ValidationVerdict } from '@dtp/domain';
import { Body, Controller, Module, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import * as classValidator from 'class-validator';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { createHttpApp } from './bootstrap';
import { newServiceContext } from './listen';

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
    app = await createHttpApp({
      ctx: newServiceContext('pipe-test', pino({ level: 'silent' })),
      module: OrdersModule,
      docs: { title: 't', description: 'd', version: '1' },
    });
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
