/**
 * A fix for the cost of Nest 11's interceptor chain on Node 20: 60 to 90 µs of CPU per request through any
 * interceptor, an eighth to a sixth of a registration's (docs/architecture.md, "Nest's interceptor chain").
 *
 * Nest runs the handler, and each interceptor after the first, inside `defer(AsyncResource.bind(fn))`, so that
 * AsyncLocalStorage stores set by an interceptor reach the handler. The static `AsyncResource.bind` creates a new
 * AsyncResource and binds `fn` to it, which is what Nest wants, but Node 20 also gives every function it returns a
 * deprecated `asyncResource` accessor (DEP0172): two functions wrapped by `util.deprecate`, each given a new
 * prototype. Two such functions per request (the idempotency interceptor is global wherever it is installed) cost
 * 60 to 90 µs of CPU per registration in `npm run bench -- platform` (of about 520), most of it not in the calls
 * themselves but in what the prototype changes do to the rest of the process's code: the CPU profile puts 5 % in
 * them, taking them out saves 12 to 17 %.
 * Upstream, raw-body made the same change for the same reason (stream-utils/raw-body #173, "perf: avoid static
 * AsyncResource.bind").
 *
 * The replacement is Nest's own `intercept`, line for line, with `AsyncResource.bind(fn)` replaced by
 * `bindAsyncContext(fn)`: one new AsyncResource, and a function that calls `fn` through its `runInAsyncScope`,
 * which is what `AsyncResource.bind` does, without the deprecated accessor. The async context a handler sees is
 * the same (tested in nest-interceptor-context.spec.ts).
 */
import { AsyncResource } from 'node:async_hooks';
import type { ExecutionContext, NestInterceptor } from '@nestjs/common';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { defer, mergeAll, Observable } from 'rxjs';

/** Nest 11.2's InterceptorsConsumer.prototype.intercept as compiled, whitespace collapsed: the code this replaces. */
const NEST_INTERCEPT_SOURCE =
  'async intercept(interceptors, args, instance, callback, next, type) { if ((0, shared_utils_1.isEmpty)(interceptors)) { return next(); } ' +
  'const context = this.createContext(args, instance, callback); context.setType(type); const nextFn = async (i = 0) => { ' +
  'if (i >= interceptors.length) { return (0, rxjs_1.defer)(async_hooks_1.AsyncResource.bind(() => this.transformDeferred(next))); } ' +
  'const handler = { handle: () => (0, rxjs_1.defer)(async_hooks_1.AsyncResource.bind(() => nextFn(i + 1))).pipe((0, operators_1.mergeAll)()), }; ' +
  'return interceptors[i].intercept(context, handler); }; return (0, rxjs_1.defer)(() => nextFn()).pipe((0, operators_1.mergeAll)()); }';

const PATCHED = Symbol.for('dtp.nest.interceptorsConsumer.patched');

/**
 * `fn` bound to the async context of the caller, as `AsyncResource.bind(fn)` binds it: a new AsyncResource (its
 * init hooks and AsyncLocalStorage stores taken from the current context) whose `runInAsyncScope` runs every call.
 */
export function bindAsyncContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const resource = new AsyncResource(fn.name || 'bound-anonymous-fn');
  return function bound(this: unknown, ...args: A): R {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}

type Consumer = InterceptorsConsumer & { [PATCHED]?: boolean };

/**
 * An interceptor that can tell, before anything runs, that it has nothing to do for a request: its `intercept` would
 * only return `next.handle()`. When every interceptor of a route says so, the handler runs as on a route without
 * interceptors (Nest's own path for those: no execution context bound, no observable chain, no AsyncResource),
 * which is most of what an interceptor costs a request (docs/architecture.md, "Nest's interceptor chain"). The
 * idempotency interceptor, global wherever it is installed, has nothing to do for a request without the header.
 */
export interface PassThroughInterceptor extends NestInterceptor {
  /** True only where `intercept(context, next)` would return `next.handle()` and do nothing else. */
  passesThrough(context: ExecutionContext): boolean;
}

function passesThrough(interceptor: NestInterceptor, context: ExecutionContext): boolean {
  const says = (interceptor as Partial<PassThroughInterceptor>).passesThrough;
  return typeof says === 'function' && says.call(interceptor, context) === true;
}

/** Nest's intercept with bindAsyncContext, and the whole chain skipped when every interceptor passes through. */
async function intercept(
  this: Consumer,
  interceptors: NestInterceptor[],
  args: unknown[],
  instance: object,
  callback: (...args: unknown[]) => unknown,
  next: () => Promise<unknown>,
  type?: string,
): Promise<unknown> {
  if (!interceptors || interceptors.length === 0) return next();
  const context = this.createContext(args, instance, callback);
  context.setType(type as string);
  if (interceptors.every((i) => passesThrough(i, context))) return next();
  const nextFn = async (i = 0): Promise<Observable<unknown>> => {
    if (i >= interceptors.length) return defer(bindAsyncContext(() => this.transformDeferred(next)));
    const handler = { handle: () => defer(bindAsyncContext(() => nextFn(i + 1))).pipe(mergeAll()) };
    return interceptors[i].intercept(context, handler) as Observable<unknown>;
  };
  return defer(() => nextFn()).pipe(mergeAll());
}

/**
 * Replaces InterceptorsConsumer.prototype.intercept, once per process, when the installed Nest's is the one above
 * (recognised by its source). Returns whether the replacement is in place: false means a Nest whose interceptor
 * chain is not the one this was written against, left as it is (the service works the same, at Nest's cost).
 */
export function fixNestInterceptorContext(): boolean {
  const proto = InterceptorsConsumer.prototype as Consumer;
  if (proto[PATCHED]) return true;
  if (String(proto.intercept).replace(/\s+/g, ' ') !== NEST_INTERCEPT_SOURCE) return false;
  proto.intercept = intercept as InterceptorsConsumer['intercept'];
  proto[PATCHED] = true;
  return true;
}
