import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { CallHandler, Controller, ExecutionContext, Get, Injectable, Module, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { map, Observable } from 'rxjs';
import { ConflictError } from '@dtp/domain';
import { kitApp } from '../test/support/kit-app';
import { bindAsyncContext, fixNestInterceptorContext, PassThroughInterceptor } from './nest-interceptor-context';

const als = new AsyncLocalStorage<string>();

/** Global: runs the rest of the chain inside an AsyncLocalStorage store, as the idempotency interceptor does. */
@Injectable()
class StoreInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return als.run('outer', () => next.handle());
  }
}

/** Route-level, after the global one: replaces the store for the handler and wraps the handler's answer. */
@Injectable()
class InnerInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const seenHere = als.getStore();
    return als.run('inner', () => next.handle()).pipe(map((value) => ({ value, seenByInner: seenHere })));
  }
}

@Controller('ctx')
class ContextController {
  @Get('one')
  async one() {
    await new Promise((resolve) => setImmediate(resolve));
    return { store: als.getStore() ?? null };
  }

  @Get('two')
  @UseInterceptors(InnerInterceptor)
  two() {
    return { store: als.getStore() ?? null };
  }

  @Get('refused')
  @UseInterceptors(InnerInterceptor)
  refused() {
    throw new ConflictError('taken', 'already_taken');
  }
}

@Module({ controllers: [ContextController], providers: [InnerInterceptor, { provide: APP_INTERCEPTOR, useClass: StoreInterceptor }] })
class ContextModule {}

describe("Nest's interceptor chain (fixNestInterceptorContext: no static AsyncResource.bind per request)", () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await kitApp('ctx-test', ContextModule);
  });
  afterAll(() => app.close());
  afterEach(() => jest.restoreAllMocks());

  it('is in place with the installed @nestjs/core, once: a second call finds it', () => {
    const method = InterceptorsConsumer.prototype.intercept;
    expect(fixNestInterceptorContext()).toBe(true);
    expect(InterceptorsConsumer.prototype.intercept).toBe(method);
    expect(String(method)).not.toContain('AsyncResource.bind');
  });

  it("hands the handler the store an interceptor set around next.handle(), after the handler's own awaits", async () => {
    const res = await app.inject({ method: 'GET', url: '/ctx/one' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ store: 'outer' });
  });

  it('chains interceptors in order: each sees the store of the one before, the handler the last one, answers pass back out', async () => {
    const res = await app.inject({ method: 'GET', url: '/ctx/two' });
    expect(res.json()).toEqual({ value: { store: 'inner' }, seenByInner: 'outer' });
  });

  it("passes a handler's refusal through the interceptors to the exception filter", async () => {
    const res = await app.inject({ method: 'GET', url: '/ctx/refused' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ message: 'taken', reason: 'already_taken' });
  });

  it('calls the static AsyncResource.bind for no request (each call cost Node 20 two deprecated accessors)', async () => {
    const bind = jest.spyOn(AsyncResource, 'bind');
    const res = await app.inject({ method: 'GET', url: '/ctx/two' });
    expect(res.statusCode).toBe(200);
    expect(bind).not.toHaveBeenCalled();
  });
});

describe('bindAsyncContext', () => {
  it("runs the function in the caller's async context, with the this and arguments of each call", async () => {
    const bound = als.run('at-bind', () =>
      bindAsyncContext(function (this: unknown, a: number, b: number) {
        return { store: als.getStore(), self: this, sum: a + b };
      }),
    );
    const self = { name: 'receiver' };
    const later = await als.run('at-call', async () => {
      await Promise.resolve();
      return bound.call(self, 2, 3);
    });
    expect(later).toEqual({ store: 'at-bind', self, sum: 5 });
  });

  it('does not carry the deprecated asyncResource property of AsyncResource.bind', () => {
    expect('asyncResource' in bindAsyncContext(() => 1)).toBe(false);
    expect('asyncResource' in AsyncResource.bind(() => 1)).toBe(true);
  });
});

/** Acts (wraps the answer) only for a request with an `x-act` header; says so beforehand. */
@Injectable()
class ActingInterceptor implements PassThroughInterceptor {
  passesThrough(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-act'] === undefined;
  }
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.passesThrough(context)) return next.handle();
    return next.handle().pipe(map((value) => ({ wrapped: value })));
  }
}

/** Never says it passes through. */
@Injectable()
class PlainInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@Controller('pass')
class PassController {
  @Get('one')
  @UseInterceptors(ActingInterceptor)
  async one() {
    await new Promise((resolve) => setImmediate(resolve));
    return { store: als.getStore() ?? null };
  }

  @Get('refused')
  @UseInterceptors(ActingInterceptor)
  refused() {
    throw new ConflictError('taken', 'already_taken');
  }

  @Get('both')
  @UseInterceptors(ActingInterceptor, PlainInterceptor)
  both() {
    return { ok: true };
  }
}

@Module({ controllers: [PassController], providers: [ActingInterceptor, PlainInterceptor] })
class PassModule {}

describe("Nest's interceptor chain: skipped when every interceptor of the route passes through (PassThroughInterceptor)", () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await kitApp('pass-test', PassModule);
  });
  afterAll(() => app.close());
  afterEach(() => jest.restoreAllMocks());

  it('runs the handler without the chain where the interceptor has nothing to do, and through it where it has', async () => {
    const intercept = jest.spyOn(ActingInterceptor.prototype, 'intercept');
    const quiet = await app.inject({ method: 'GET', url: '/pass/one' });
    expect(quiet.json()).toEqual({ store: null });
    expect(intercept).not.toHaveBeenCalled();

    const acting = await app.inject({ method: 'GET', url: '/pass/one', headers: { 'x-act': '1' } });
    expect(acting.json()).toEqual({ wrapped: { store: null } });
    expect(intercept).toHaveBeenCalledTimes(1);
  });

  it("passes a handler's refusal to the exception filter either way", async () => {
    for (const headers of [{}, { 'x-act': '1' }]) {
      const res = await app.inject({ method: 'GET', url: '/pass/refused', headers });
      expect([res.statusCode, res.json()]).toEqual([409, { message: 'taken', reason: 'already_taken' }]);
    }
  });

  it('runs the whole chain when one interceptor of the route does not say it passes through', async () => {
    const acting = jest.spyOn(ActingInterceptor.prototype, 'intercept');
    const plain = jest.spyOn(PlainInterceptor.prototype, 'intercept');
    const res = await app.inject({ method: 'GET', url: '/pass/both' });
    expect(res.json()).toEqual({ ok: true });
    expect([acting.mock.calls.length, plain.mock.calls.length]).toEqual([1, 1]);
  });
});
