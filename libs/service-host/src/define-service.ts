import { DynamicModule, Module, Provider, Type } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { AuthGuardModule, TokenVerifierOptions } from '@dtp/auth-guard';
import { DataSourceOptions, IdempotencyModule, runMigrations } from '@dtp/database';
import { connectEvents, EventsModuleOptions, EventTransport } from '@dtp/events';
import {
  BaseServiceConfig,
  createHttpApp,
  DocsOptions,
  listenService,
  newServiceContext,
  previewOpenApiDocument,
  RateLimitModule,
  RateLimitSettings,
  RunningService,
  ServiceDefinition,
} from '@dtp/service-kit';
import { ServiceCoreModule } from './service-core.module';

/** What every service's config has beside the kit's variables: its own database and outbox settings. */
export interface HostedServiceConfig extends BaseServiceConfig {
  DATABASE_URL: string;
  DB_POOL_SIZE: number;
}

/** What a service is given to run: at least its event transport (Kafka or the in-process bus). */
export interface HostedServiceDeps {
  transport: EventTransport;
}

/** Where a service's dependencies are absent: its OpenAPI document is built without starting it. */
export type DepsOrPreview<D> = D | undefined;

/**
 * One service, described once: defineService turns it into the ServiceDefinition the runners use (`npm start`,
 * its `main.ts`, tests, `npm run openapi`).
 */
export interface ServiceSpec<C extends HostedServiceConfig, D extends HostedServiceDeps> {
  name: string;
  configClass: new () => C;
  /** What the service's OpenAPI document says about it (address, token audience, transforms). */
  docs(config: C): DocsOptions;
  /** The entities and migrations of its own database (url, pool size and application name come from the config). */
  database: Pick<DataSourceOptions, 'entities' | 'migrations'>;
  /** Its events beside the transport: the consumer group of its `@EventPattern` handlers, the outbox relay. */
  events(config: C, deps: DepsOrPreview<D>): Omit<EventsModuleOptions, 'service' | 'transport' | 'databaseUrl'>;
  /** Global providers of the service (a config token, a blob store), exported to every feature module. */
  providers?(config: C, deps: DepsOrPreview<D>): { providers: Provider[]; exports: Array<string | symbol | Provider> };
  /**
   * The public API's access tokens (omit for auth, which issues them): the guard (passport-jwt, the revocation
   * deny-list fed by auth.participants.v1), per-client rate limits, and Idempotency-Key on POST and PATCH.
   */
  api?(config: C): { tokens: TokenVerifierOptions; rateLimits: RateLimitSettings; idempotency: boolean };
  /** The feature modules: controllers, handlers and their providers. */
  features: Array<Type<unknown> | DynamicModule>;
  /** Fastify plugins and hooks registered before the routes (multipart, auth's token response hook). */
  configure?(fastify: FastifyInstance, config: C): Promise<void> | void;
  /** Said or checked before the start (a warning about a chosen setting). */
  beforeStart?(config: C, logger: Logger): void;
  /** Runs once the server listens (and its consumers started): a side listener of its own, say. */
  afterListen?(running: RunningService, config: C, logger: Logger): Promise<RunningService>;
}

/** The database options of a service, for its migrations, its DataSource and tools (search:rebuild). */
export function serviceDatabase<C extends HostedServiceConfig>(
  spec: Pick<ServiceSpec<C, HostedServiceDeps>, 'name' | 'database'>,
  config: Pick<C, 'DATABASE_URL' | 'DB_POOL_SIZE'>,
): DataSourceOptions {
  return { url: config.DATABASE_URL, service: spec.name, poolSize: config.DB_POOL_SIZE, ...spec.database };
}

/**
 * A transport for the OpenAPI document only: the preview creates no provider, so nothing can publish or subscribe;
 * if something ever tried, it says why instead of failing on `undefined`.
 */
export function previewTransport(service: string): EventTransport {
  const refuse = async (): Promise<never> => {
    throw new Error(`${service}: this instance was built for its OpenAPI document only; it has no event transport`);
  };
  return { kind: 'in-process', publish: refuse, subscribe: refuse, check: refuse, close: async () => undefined };
}

/** The service's root module: its core (config, database, events, global providers), the API guard, its features. */
export function serviceModule<C extends HostedServiceConfig, D extends HostedServiceDeps>(
  spec: ServiceSpec<C, D>,
  config: C,
  deps: DepsOrPreview<D>,
): DynamicModule {
  const own = spec.providers?.(config, deps) ?? { providers: [], exports: [] };
  const core = ServiceCoreModule.forRoot({
    name: spec.name,
    configClass: spec.configClass,
    config,
    database: serviceDatabase(spec, config),
    events: { ...spec.events(config, deps), service: spec.name, transport: deps?.transport ?? previewTransport(spec.name), databaseUrl: config.DATABASE_URL },
    providers: own.providers,
    exports: own.exports,
  });
  const api = spec.api?.(config);
  const guarded = api
    ? [
        AuthGuardModule.forRoot(api.tokens),
        // Per-client rate limits (RATE_LIMIT_*; off by default): after the guard, before everything else.
        RateLimitModule.forRoot(api.rateLimits),
        // Idempotency-Key on every POST and PATCH (DESIGN.md "Idempotency-Key").
        ...(api.idempotency ? [IdempotencyModule] : []),
      ]
    : [];
  @Module({})
  class ServiceRootModule {}
  Object.defineProperty(ServiceRootModule, 'name', { value: `${spec.name[0].toUpperCase()}${spec.name.slice(1)}Module` });
  return { module: ServiceRootModule, imports: [core, ...guarded, ...spec.features] };
}

/**
 * The one start-up of every service: validate-and-migrate (the runners), then createHttpApp over its root module,
 * its `@EventPattern` handlers connected as consumers (they start once the server listens), listen, and whatever
 * it runs after. Its OpenAPI document is built from the same module without dependencies.
 */
export function defineService<C extends HostedServiceConfig, D extends HostedServiceDeps>(
  spec: ServiceSpec<C, D>,
): ServiceDefinition<C, D> & { spec: ServiceSpec<C, D> } {
  return {
    spec,
    name: spec.name,
    configClass: spec.configClass,
    migrate: async (config, logger) => {
      await runMigrations(serviceDatabase(spec, config), logger);
    },
    async start(config, deps, logger) {
      spec.beforeStart?.(config, logger);
      const ctx = newServiceContext(spec.name, logger);
      const app: NestFastifyApplication = await createHttpApp({
        ctx,
        module: serviceModule(spec, config, deps),
        docs: spec.docs(config),
        configure: spec.configure ? async (fastify) => spec.configure!(fastify, config) : undefined,
      });
      // Every @EventPattern handler (the revocation deny-list's included) becomes a consumer; they start after listen.
      if (spec.events(config, deps).group !== undefined) connectEvents(app);
      const running = await listenService({ name: spec.name, app, config, ctx });
      if (!spec.afterListen) return running;
      return spec.afterListen(running, config, logger).catch(async (err: unknown) => {
        await running.close();
        throw err;
      });
    },
    openapi: (config) => previewOpenApiDocument(spec.name, serviceModule(spec, config, undefined), spec.docs(config)),
  };
}
