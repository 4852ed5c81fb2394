import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ArgumentsHost, Catch, RpcExceptionFilter } from '@nestjs/common';
import { BaseRpcContext, CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom, Observable, throwError } from 'rxjs';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import type { Tx, UnitOfWork } from '@dtp/database';
import { BatchContext, ConsumeContext, itemHandlers, RunConsumerOptions, runConsumer, RunningConsumer } from '../consumer';
import { EventTransport, IncomingMessage, SubscribeOptions, Subscription } from '../transport';

/**
 * How an `@EventPattern(topic, route)` handler consumes its topic (the second argument of `@EventPattern`):
 * - `scope: 'service'` (default): the service's consumer group (ConsumerGroups), partitions shared by its
 *   replicas, progress kept in `consumer_state` under the group's name, from the beginning on first start;
 * - `scope: 'instance'`: a group of this instance alone (`<service group>-<name>.<instance>`), new at every
 *   start and replayed from the beginning, for state every replica needs whole (the token deny-list); its
 *   progress rows are dropped at close, and earlier instances' rows at start.
 */
export interface EventRoute {
  scope?: 'service' | 'instance';
  /** Short name for logs, readiness and the instance group (default: the topic). */
  name?: string;
  /** Start order (lower first, default 100): the deny-list starts before the consumers whose effects it guards. */
  order?: number;
  /** Also receive tombstones (null values): the handler is called with payload `null` and `context.key`. */
  tombstones?: boolean;
  /** Consecutive messages of a partition in one transaction (default true). */
  batch?: boolean;
  /** `consumer_state` name for a service-scoped route (default: the group). A rebuild replays under another group with the same state. */
  stateName?: string;
  /**
   * The handler takes several events at once (runConsumer's `handleMany`, through itemHandlers): `@Payload()` is an `EventItem[]` (a run
   * of consecutive messages of a partition with distinct keys, in offset order, each newer than what the service
   * holds; a tombstone is an item whose `event` is null) and `@Ctx()` an EventBatchContext. Writing them in one
   * statement saves a round trip per event. Any error rolls the batch back and its messages are taken one at a
   * time (one item per call), so a ParkEventError parks exactly the message it is about.
   */
  many?: boolean;
  /**
   * Consume the topic in a Kafka consumer of its own (group `kafkaGroupId(group, topic)`, as every topic had
   * before consumers were shared) instead of the service's shared one. A shared consumer fetches again only when
   * every batch of its last fetch is applied, so a topic whose events take long to apply (a custody checkpoint of
   * 256 entries: tens of milliseconds) would hold up the service's other topics by that much. Costs one more
   * consumer (its fetches and group membership). Ignored on the in-process bus, where every route has its own loop.
   */
  ownConsumer?: boolean;
  /**
   * For a topic whose events are rare (RARE_EVENTS_FETCH_WAIT_MS): the least time a fetch of the route's consumer
   * waits for data, instead of KAFKA_MAX_WAIT_MS when that is shorter. Implies a consumer of its own (a shared one
   * keeps the service's wait). A broker answers as soon as data arrives, so this costs no latency there and spares
   * the process most of its empty fetches; the librdkafka mock answers only when the wait has passed.
   */
  fetchWaitMs?: number;
}

/** What a `many` handler gets as `@Ctx()`: the transaction all its items' effects must be written in. */
export class EventBatchContext extends BaseRpcContext<[BatchContext]> {
  get tx(): Tx {
    return this.args[0].tx;
  }

  get manager(): EntityManager {
    return this.args[0].manager;
  }
}

/**
 * What an event handler gets as `@Ctx()`: the transaction its effect must be written in (`tx`, with
 * `afterCommit`; `manager` is the same transaction's EntityManager), the message, and the revision the service
 * held for the key before this event.
 */
export class EventContext extends BaseRpcContext<
  [ConsumeContext | { key: string; tombstone: true; manager: EntityManager; tx: Tx; message: IncomingMessage }]
> {
  get tx(): Tx {
    return this.args[0].tx;
  }

  get manager(): EntityManager {
    return this.args[0].manager;
  }

  get message(): IncomingMessage {
    return this.args[0].message;
  }

  get key(): string {
    return this.args[0].message.key;
  }

  /** Null for a key never seen (and for tombstones). */
  get heldRevision(): number | null {
    const a = this.args[0];
    return 'heldRevision' in a ? a.heldRevision : null;
  }
}

export interface EventsServerOptions {
  transport: EventTransport;
  /** The service's consumer group (ConsumerGroups in @dtp/domain). */
  group: string;
  dataSource: DataSource;
  /** The service's unit of work: consumer transactions run its commit listeners (the relay's wake-up) too. */
  unitOfWork?: UnitOfWork;
  logger: Logger;
  registry?: Registry;
  /** This instance's name for instance-scoped routes (default: host, pid and a random suffix). */
  instance?: string;
  /** Extra runConsumer options (tests: smaller retry counts, onSettled). */
  consumerDefaults?: Partial<Pick<RunConsumerOptions, 'maxTransientAttempts' | 'maxMessageBytes' | 'maxDepth' | 'maxBatch' | 'onSettled'>>;
}

/** A started route on its way to the head of its topic (readiness `catching up`). */
interface CatchUp {
  route: Route;
  done: boolean;
  /** Messages behind the topic's end at the last look (undefined before the first). */
  lag?: number;
}

/** How often a restarted consumer's committed positions are compared with the head it must reach. */
const CATCH_UP_POLL_MS = 500;

/** `<host>-<pid>-<random>`, restricted to what a group name may hold. */
export function defaultInstanceName(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .slice(0, 60) || 'host';
  return `${host}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

interface Route {
  topic: string;
  route: EventRoute;
  handler: MessageHandler;
  group: string;
  stateName: string;
  label: string;
}

/**
 * Keeps a handler's error as it is: the consumer framework decides from its class whether to park or retry.
 * (Nest's default RPC filter would replace it with `{status: 'error', message: 'Internal server error'}`.)
 */
@Catch()
export class EventErrorPassThrough implements RpcExceptionFilter<unknown> {
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => exception);
  }
}

/**
 * A Nest microservice transport (`CustomTransportStrategy`) over the service's EventTransport: Kafka in separate
 * processes, the in-process bus under `npm start`, the same handlers either way. Every `@EventPattern(topic)`
 * handler that Nest discovered becomes one consumer (runConsumer: validated, revision-idempotent, total,
 * batched), started in `order` when the app's microservices start, each retried with back-off (1 s doubling to
 * 30 s) until it runs. While any is not yet running, `starting()` names it (readiness: `consumers: degraded`).
 */
export class EventsServer extends Server implements CustomTransportStrategy {
  private running: { route: Route; consumer: RunningConsumer }[] = [];
  private stopped = false;
  private pending: string | null = null;
  private lastError: string | null = null;
  /** The start-up loop (listen), awaited by close so that nothing it starts outlives the server. */
  private loop: Promise<void> = Promise.resolve();
  /** Per started route: how far it is from the head its topic had when it started (readiness). */
  private readonly catchUps = new Map<string, CatchUp>();
  /** Cut the start-up back-off sleeps short (close). */
  private readonly wakers = new Set<() => void>();
  private readonly instance: string;

  constructor(private readonly opts: EventsServerOptions) {
    super();
    this.instance = opts.instance ?? defaultInstanceName();
  }

  /**
   * Readiness's `consumers` component: what is not running yet (`starting ...`), then, after a restart, the
   * consumers still behind the head of their topic as it was when they started (`catching up (lag N)`, N the
   * messages behind the topic's end now), else nothing. Degraded, never down: the instance serves what it has.
   */
  starting(): { degraded: string; detail?: Record<string, unknown> } | undefined {
    if (this.pending !== null) return { degraded: `starting ${this.pending}${this.lastError ? ` (last attempt: ${this.lastError})` : ''}` };
    const behind = [...this.catchUps.values()].filter((c) => !c.done);
    if (behind.length === 0) return undefined;
    const known = behind.filter((c) => c.lag !== undefined);
    const lag = known.reduce((sum, c) => sum + (c.lag ?? 0), 0);
    return {
      degraded: `catching up (lag ${known.length === behind.length ? lag : 'unknown'})`,
      detail: { catching_up: behind.map((c) => ({ consumer: c.route.label, lag: c.lag ?? null })) },
    };
  }

  /** The consumers running, by label (tests, metrics). */
  consumers(): ReadonlyMap<string, RunningConsumer> {
    return new Map(this.running.map((r) => [r.route.label, r.consumer]));
  }

  listen(callback: (err?: unknown) => void): void {
    let routes: Route[];
    try {
      routes = this.routes();
    } catch (err) {
      callback(err);
      return;
    }
    this.pending = routes[0]?.label ?? null;
    this.loop = this.startAll(routes);
    this.loop.then(
      () => callback(),
      (err: unknown) => callback(err),
    );
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const wake of this.wakers) wake();
    this.wakers.clear();
    await this.loop.catch(() => undefined);
    const running = this.running;
    this.running = [];
    this.catchUps.clear();
    await Promise.all(
      running.map(async ({ route, consumer }) => {
        await consumer.close();
        if (route.route.scope === 'instance') await this.dropProgress(route, 'own');
      }),
    );
  }

  on(): never {
    throw new Error('EventsServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.opts.transport as T;
  }

  /** The handlers Nest discovered, one route per handler (several handlers of one topic are chained by Nest). */
  routes(): Route[] {
    return (this.discovered ??= this.discover());
  }

  private discovered?: Route[];

  private discover(): Route[] {
    const routes: Route[] = [];
    for (const [pattern, head] of this.getHandlers()) {
      const topic = this.topicOf(pattern);
      // Nest chains the handlers of one pattern (`next`) and calling the head calls them all; here each handler
      // is a consumer of its own (its group, its transaction), so the chain is taken apart.
      const chain: MessageHandler[] = [];
      for (let h: MessageHandler | undefined = head; h; h = h.next) chain.push(h);
      for (const h of chain) h.next = undefined;
      for (const h of chain) {
        if (!h.isEventHandler) throw new Error(`@MessagePattern(${pattern}): events are one-way; use @EventPattern`);
        const route = (h.extras ?? {}) as EventRoute;
        const name = route.name ?? topic;
        const scope = route.scope ?? 'service';
        const group = scope === 'instance' ? `${this.opts.group}-${name}.${this.instance}` : this.opts.group;
        routes.push({
          topic,
          route,
          handler: h,
          group,
          stateName: scope === 'instance' ? group : (route.stateName ?? group),
          label: `the ${topic} consumer${route.name ? ` (${route.name})` : ''}`,
        });
      }
    }
    const clash = routes.find((r, i) => routes.some((o, j) => j < i && o.group === r.group && o.topic === r.topic));
    if (clash) throw new Error(`two handlers consume ${clash.topic} in group ${clash.group}: give one a scope or put both effects in one handler`);
    return routes.sort((a, b) => (a.route.order ?? 100) - (b.route.order ?? 100));
  }

  private topicOf(pattern: string): string {
    try {
      const parsed = JSON.parse(pattern) as unknown;
      if (typeof parsed === 'string') return parsed;
    } catch {
      // a plain topic name
    }
    return pattern;
  }

  /**
   * Starts the routes in `order` steps: the routes of one order together (each joining its group in parallel, so a
   * restart costs one group join, not one per consumer), the next order once all of them run. Where the transport
   * can (Kafka), a step's service-scoped routes share one consumer of the service's group (`subscribeAll`), except
   * those marked `ownConsumer` or given a `fetchWaitMs`.
   */
  private async startAll(routes: Route[]): Promise<void> {
    const steps = new Map<number, Route[]>();
    for (const route of routes) {
      const order = route.route.order ?? 100;
      steps.set(order, [...(steps.get(order) ?? []), route]);
    }
    const together = this.opts.transport.subscribeAll !== undefined;
    for (const step of [...steps.keys()].sort((a, b) => a - b).map((k) => steps.get(k)!)) {
      const waiting = new Set(step.map((r) => r.label));
      this.pending = [...waiting].join(', ');
      const shared = together ? step.filter((r) => r.route.scope !== 'instance' && !r.route.ownConsumer && r.route.fetchWaitMs === undefined) : [];
      const units = shared.length > 1 ? [shared, ...step.filter((r) => !shared.includes(r)).map((r) => [r])] : step.map((r) => [r]);
      await Promise.all(
        units.map(async (unit) => {
          await this.startWithRetries(unit);
          for (const route of unit) waiting.delete(route.label);
          if (waiting.size > 0) this.pending = [...waiting].join(', ');
        }),
      );
      if (this.stopped) return;
    }
    this.pending = null;
  }

  /** Starts routes (one, or several sharing a consumer), retried with back-off (1 s doubling to 30 s) until they run or the server closes. */
  private async startWithRetries(unit: Route[]): Promise<void> {
    const step = unit.map((r) => r.label).join(', ');
    for (let wait = 1000; !this.stopped; wait = Math.min(wait * 2, 30_000)) {
      try {
        const consumers = unit.length === 1 ? [await this.startOne(unit[0], this.opts.transport)] : await this.startShared(unit);
        if (this.stopped) {
          await Promise.all(consumers.map((c) => c.close()));
          return;
        }
        unit.forEach((route, i) => this.running.push({ route, consumer: consumers[i] }));
        this.lastError = null;
        this.opts.logger.info({ step }, 'started');
        for (const route of unit) this.followCatchUp(route);
        return;
      } catch (err) {
        this.lastError = err instanceof Error ? err.message : String(err);
        this.opts.logger.error({ step, err: this.lastError, retryInMs: wait }, 'could not start; retrying');
        if (this.stopped) return;
        await new Promise<void>((resolve) => {
          const cut = () => {
            clearTimeout(timer);
            this.wakers.delete(cut);
            resolve();
          };
          const timer = setTimeout(cut, wait);
          timer.unref();
          this.wakers.add(cut);
        });
      }
    }
  }

  /**
   * Starts each route's runConsumer with a transport that holds its subscription until every route of `unit` has
   * asked, then subscribes them all at once (`subscribeAll`: one consumer). All run, or none: a failure closes
   * the ones that started.
   */
  private async startShared(unit: Route[]): Promise<RunningConsumer[]> {
    const asked: { options: SubscribeOptions; resolve: (s: Subscription) => void; reject: (err: unknown) => void }[] = [];
    let failed: { err: unknown } | undefined;
    const gather: Pick<EventTransport, 'subscribe'> = {
      subscribe: (options) =>
        new Promise<Subscription>((resolve, reject) => {
          if (failed) return reject(failed.err);
          asked.push({ options, resolve, reject });
          if (asked.length < unit.length) return;
          this.opts.transport.subscribeAll!(asked.map((a) => a.options)).then(
            (subscriptions) => asked.forEach((a, i) => a.resolve(subscriptions[i])),
            (err: unknown) => asked.forEach((a) => a.reject(err)),
          );
        }),
    };
    const results = await Promise.allSettled(
      unit.map((route) =>
        this.startOne(route, gather).catch((err: unknown) => {
          // A route that failed before it asked: the others must not wait for it.
          failed ??= { err };
          for (const a of asked.splice(0)) a.reject(err);
          throw err;
        }),
      ),
    );
    const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failure) return started;
    await Promise.all(started.map((c) => c.close().catch(() => undefined)));
    throw failure.reason;
  }

  /**
   * Takes the ends of the route's topic now (the head it must reach) and watches the group's committed positions
   * every half second until they reach them; logs how long that took. Nothing to watch in-process, where the bus
   * has no backlog, nor when the broker cannot say (the consumer runs either way).
   */
  private followCatchUp(route: Route): void {
    const offsets = this.opts.transport.groupOffsets?.bind(this.opts.transport);
    const started = Date.now();
    const entry: CatchUp = { route, done: offsets === undefined };
    this.catchUps.set(route.label, entry);
    if (!offsets) return;
    const log = this.opts.logger.child({ step: route.label });
    let target: Map<number, number> | undefined;
    const poll = async (): Promise<void> => {
      if (this.stopped || entry.done) return;
      try {
        const now = await offsets(route.group, route.topic);
        target ??= new Map(now.filter((p) => p.end > p.committed).map((p) => [p.partition, p.end]));
        // A partition is where the group committed it, or further where this instance settled more since (Kafka
        // gets offsets at most every second, and only while messages flow: an idle partition's last ones wait).
        const settled = this.running.find((r) => r.route === route)?.consumer.settled() ?? new Map<number, number>();
        const committed = new Map(now.map((p) => [p.partition, Math.max(p.committed, settled.get(p.partition) ?? 0)]));
        entry.lag = now.reduce((sum, p) => sum + Math.max(0, p.end - committed.get(p.partition)!), 0);
        const remaining = [...target].reduce((sum, [partition, end]) => sum + Math.max(0, end - (committed.get(partition) ?? 0)), 0);
        if (remaining === 0) {
          entry.done = true;
          log.info({ caughtUpInMs: Date.now() - started, lag: entry.lag }, 'at the head its topic had when it started');
          return;
        }
      } catch (err) {
        // A topic nobody has written yet has nothing to catch up on; anything else is asked again.
        if (target === undefined && /does not host this topic-partition|unknown topic/i.test(err instanceof Error ? err.message : String(err))) {
          entry.done = true;
          return;
        }
        log.debug({ err: err instanceof Error ? err.message : String(err) }, 'could not read the group positions; asking again');
      }
      const timer = setTimeout(() => void poll(), CATCH_UP_POLL_MS);
      timer.unref();
    };
    void poll();
  }

  /**
   * Starts runConsumer for one route: the route's handler is called through Nest (its pipes, interceptors and
   * filters) with the event and an EventContext, or, for a `many` route, with the items (itemHandlers) and an
   * EventBatchContext; what it returns (a promise, an Observable) is waited for.
   */
  private async startOne(route: Route, transport: Pick<EventTransport, 'subscribe'>): Promise<RunningConsumer> {
    if (route.route.scope === 'instance') await this.dropProgress(route, 'earlier');
    const call = async (payload: unknown, ctx: BaseRpcContext): Promise<void> => {
      await lastValueFrom(this.transformToObservable(await route.handler(payload, ctx)), { defaultValue: undefined });
    };
    const tombstones = route.route.tombstones === true;
    const handlers: Pick<RunConsumerOptions, 'handle' | 'handleMany' | 'onTombstone'> = route.route.many
      ? itemHandlers((items, ctx) => call(items, new EventBatchContext([ctx])), { tombstones })
      : {
          handle: (envelope, ctx) => call(envelope, new EventContext([ctx])),
          onTombstone: tombstones ? (key, ctx) => call(null, new EventContext([{ ...ctx, key, tombstone: true }])) : undefined,
        };
    return runConsumer({
      ...this.opts.consumerDefaults,
      transport,
      topic: route.topic,
      group: route.group,
      stateName: route.stateName,
      dataSource: this.opts.dataSource,
      unitOfWork: this.opts.unitOfWork,
      logger: this.opts.logger,
      registry: this.opts.registry,
      fromBeginning: true,
      fetchWaitMs: route.route.fetchWaitMs,
      batch: route.route.batch,
      ...handlers,
    });
  }

  /** Instance-scoped progress: earlier instances' rows at start (harmless to a running replica), our own at close. */
  private async dropProgress(route: Route, whose: 'earlier' | 'own'): Promise<void> {
    const prefix = `${this.opts.group}-${route.route.name ?? route.topic}.`;
    const sql =
      whose === 'own'
        ? 'DELETE FROM consumer_state WHERE consumer = $1 AND topic = $2'
        : `DELETE FROM consumer_state WHERE topic = $2 AND consumer LIKE $3 AND consumer <> $1`;
    const params = whose === 'own' ? [route.group, route.topic] : [route.group, route.topic, `${prefix.replace(/[%_\\]/g, '\\$&')}%`];
    await this.opts.dataSource.query(sql, params).catch((err: unknown) => {
      if (whose === 'earlier') throw err;
      this.opts.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'could not delete the instance progress rows');
    });
  }
}
