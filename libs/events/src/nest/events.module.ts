import { DynamicModule, Inject, Injectable, INestApplication, INestMicroservice, Module, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { NestMicroservice } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { LOGGER, Readiness, ServiceMetrics } from '@dtp/service-kit';
import { BrokerMonitor } from '../broker-monitor';
import { DEFAULT_OUTBOX_RETENTION_HOURS, OutboxPurger } from '../outbox-purger';
import { OutboxRelay, OutboxRelayOptions } from '../outbox-relay';
import { OutboxSignal } from '../outbox-signal';
import { EventTransport } from '../transport';
import { EventErrorPassThrough, EventsServer, EventsServerOptions } from './events.server';

/** The service's EventTransport (Kafka or the in-process bus), for whatever publishes outside the outbox. */
export const EVENT_TRANSPORT = Symbol('EVENT_TRANSPORT');
const EVENTS_OPTIONS = Symbol('EVENTS_OPTIONS');

export interface EventsModuleOptions {
  /** The service's name: the relay's advisory lock (`outbox:<service>`) and connection names. */
  service: string;
  transport: EventTransport;
  /** Where the relay connects (its own two connections: the lock holder and the LISTEN one). */
  databaseUrl: string;
  /** The consumer group of the service's `@EventPattern` handlers (ConsumerGroups); omit when it consumes nothing. */
  group?: string;
  /**
   * The outbox relay (omit for a service that publishes nothing). `wake: 'commit'` (platform) wakes it after
   * every commit of the UnitOfWork and NOTIFYs other replicas at most every 25 ms (the outbox table has no
   * NOTIFY trigger there); `'trigger'` (default) relies on the table's trigger, and still pokes the local relay.
   */
  relay?: Pick<OutboxRelayOptions, 'pollIntervalMs' | 'batchSize' | 'maxBackoffMs' | 'lingerMs' | 'afterPublish'> & {
    wake?: 'commit' | 'trigger';
    /** Hours a published row is kept before OutboxPurger deletes it (OUTBOX_RETENTION_HOURS); 0 keeps them all. */
    retentionHours?: number;
  };
  /** runConsumer options for every handler (tests). */
  consumerDefaults?: EventsServerOptions['consumerDefaults'];
  /** This instance's name for instance-scoped handlers (default: host, pid, random). */
  instance?: string;
  /** How often, and how patiently, the broker's reachability is checked for readiness (default every 5 s, 3 s). */
  brokerCheck?: { intervalMs?: number; timeoutMs?: number };
}

/**
 * An outbox row unpublished for this long makes readiness's `events` component read `degraded: outbox behind`
 * (the instance stays ready: the writes behind it are committed and will be published).
 */
export const OUTBOX_DEGRADED_AFTER_SECONDS = 60;

/**
 * Publishes the outbox: started when the application bootstraps (before it listens), stopped when it is
 * destroyed. Writes committed afterwards stay in the outbox for the next start (or another replica's relay).
 * Readiness (`events`) shows the relay's part: whether this replica leads, the backlog and its oldest row's age.
 */
@Injectable()
export class OutboxRelayHost implements OnApplicationBootstrap, OnModuleDestroy {
  readonly relay: OutboxRelay;
  private readonly signal?: OutboxSignal;

  constructor(
    @Inject(EVENTS_OPTIONS) opts: EventsModuleOptions,
    @Inject(LOGGER) logger: Logger,
    metrics: ServiceMetrics,
    uow: UnitOfWork,
    readiness: Readiness,
  ) {
    const { wake, ...relayOptions } = opts.relay ?? {};
    this.relay = new OutboxRelay({
      ...relayOptions,
      service: opts.service,
      databaseUrl: opts.databaseUrl,
      transport: opts.transport,
      logger,
      registry: metrics.registry,
    });
    readiness.addReport('events', async () => {
      const outbox = this.relay.status();
      const behind = outbox.oldest_seconds !== undefined && outbox.oldest_seconds >= OUTBOX_DEGRADED_AFTER_SECONDS;
      return {
        ...(behind ? { degraded: `outbox behind (${outbox.backlog} unpublished, oldest ${Math.round(outbox.oldest_seconds!)} s)` } : {}),
        detail: { outbox },
      };
    });
    if (wake === 'commit') {
      const signal = new OutboxSignal((channel) => uow.sql.query('SELECT pg_notify($1, $2)', [channel, '']));
      signal.attachRelay(() => this.relay.poke());
      this.signal = signal;
      uow.onCommit(() => signal.committed());
    } else {
      uow.onCommit(() => this.relay.poke());
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.signal?.close();
    await this.relay.stop();
  }
}

/**
 * The broker's reachability, checked in the background (BrokerMonitor): readiness's `events` component reads
 * `degraded: broker unreachable` while it is away, never `down` (a broker outage is no reason to take an instance
 * out of its Service: DESIGN.md "Health and readiness").
 */
@Injectable()
export class BrokerMonitorHost implements OnApplicationBootstrap, OnModuleDestroy {
  readonly monitor: BrokerMonitor;

  constructor(@Inject(EVENTS_OPTIONS) opts: EventsModuleOptions, @Inject(LOGGER) logger: Logger, metrics: ServiceMetrics, readiness: Readiness) {
    this.monitor = new BrokerMonitor({ transport: opts.transport, logger, registry: metrics.registry, ...opts.brokerCheck });
    readiness.addReport('events', async () => {
      const state = this.monitor.current();
      if (!state) return { detail: { broker: 'checking' } };
      return {
        ...(state.broker === 'unreachable' ? { degraded: `broker unreachable since ${state.since} (${state.error})` } : {}),
        detail: { broker: state.broker, ...(state.broker === 'unreachable' ? { broker_unreachable_since: state.since } : {}) },
      };
    });
  }

  onApplicationBootstrap(): void {
    this.monitor.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.monitor.stop();
  }
}

/**
 * Deletes published outbox rows past the retention (OutboxPurger): shortly after bootstrap, then hourly. Stopped,
 * and a running purge awaited, when the module is destroyed: before the shutdown hooks close the database.
 */
@Injectable()
export class OutboxPurgerHost implements OnApplicationBootstrap, OnModuleDestroy {
  readonly purger: OutboxPurger;

  constructor(@Inject(EVENTS_OPTIONS) opts: EventsModuleOptions, @Inject(LOGGER) logger: Logger, metrics: ServiceMetrics, uow: UnitOfWork) {
    this.purger = new OutboxPurger({
      sql: uow.sql,
      retentionHours: opts.relay?.retentionHours ?? DEFAULT_OUTBOX_RETENTION_HOURS,
      logger,
      registry: metrics.registry,
    });
  }

  onApplicationBootstrap(): void {
    this.purger.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.purger.stop();
  }
}

/**
 * Events in a service, the Nest way: the `EventsServer` transport strategy (connected with `connectEvents`, run by
 * `app.startAllMicroservices()`), the outbox relay and purger as lifecycle providers, and the broker's reachability
 * (BrokerMonitorHost: readiness `events`, degraded and never down) plus the consumers' start-up (`consumers`). Needs DatabaseModule (UnitOfWork) and the kit's module.
 */
@Module({})
export class EventsModule {
  static forRoot(opts: EventsModuleOptions): DynamicModule {
    return {
      module: EventsModule,
      global: true,
      providers: [
        { provide: EVENTS_OPTIONS, useValue: opts },
        { provide: EVENT_TRANSPORT, useValue: opts.transport },
        BrokerMonitorHost,
        ...(opts.relay ? [OutboxRelayHost, OutboxPurgerHost] : []),
        {
          provide: EventsServer,
          inject: [DataSource, UnitOfWork, LOGGER, ServiceMetrics, Readiness],
          useFactory: (dataSource: DataSource, uow: UnitOfWork, logger: Logger, metrics: ServiceMetrics, readiness: Readiness) => {
            const server = new EventsServer({
              transport: opts.transport,
              group: opts.group ?? opts.service,
              dataSource,
              unitOfWork: uow,
              logger,
              registry: metrics.registry,
              instance: opts.instance,
              consumerDefaults: opts.consumerDefaults,
            });
            readiness.addReport('consumers', async () => server.starting());
            return server;
          },
        },
      ],
      exports: [EVENT_TRANSPORT, EventsServer, BrokerMonitorHost, ...(opts.relay ? [OutboxRelayHost, OutboxPurgerHost] : [])],
    };
  }
}

/**
 * How a service connects its events (in app.ts, before listen; the kit's listenService runs
 * `app.startAllMicroservices()` after the server listens):
 *
 *   const events = eventsStrategy(app);
 *   registerEventHandlers(app.connectMicroservice(events, EVENTS_HYBRID_OPTIONS), events.strategy);
 *
 * Every `@EventPattern` handler of the app's controllers becomes a consumer of the EventsServer.
 */
export function eventsStrategy(app: INestApplication): { strategy: EventsServer } {
  return { strategy: app.get(EventsServer) };
}

/**
 * A hybrid app of its own config (the HTTP app's guard, pipes and filters are not for events), whose listeners are
 * registered by registerEventHandlers rather than by connectMicroservice.
 */
export const EVENTS_HYBRID_OPTIONS = { inheritAppConfig: false, deferInitialization: true } as const;

/**
 * Installs the pass-through error filter, then registers the handlers: Nest resolves a handler's exception filters
 * when it registers the listeners, which connectMicroservice does at once unless `deferInitialization` is set. The
 * application's own init hooks have run, or will run, once (hence the flags). Throws when two handlers clash.
 */
export function registerEventHandlers(microservice: INestMicroservice, server: EventsServer): void {
  const ms = microservice as unknown as NestMicroservice;
  ms.useGlobalFilters(new EventErrorPassThrough());
  ms.registerListeners();
  ms.setIsInitialized(true);
  ms.setIsInitHookCalled(true);
  server.routes();
}

/** Both steps at once (tests, tools): connects `server` (default: the app's EventsServer) to `app`. */
export function connectEvents(app: INestApplication, server: EventsServer = app.get(EventsServer)): EventsServer {
  registerEventHandlers(app.connectMicroservice({ strategy: server }, EVENTS_HYBRID_OPTIONS), server);
  return server;
}
