import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { EventTransport, OutboxRelay } from '@dtp/events';
import { createHttpApp, listenService, newServiceContext, ServiceDefinition } from '@dtp/service-kit';
import { AuthConfig } from './config';
import { authEntities } from './entities';
import { authMigrations } from './migrations';
import { AuthModule, buildAuthCore } from './auth.module';
import { registerTokenResponseHook } from './token/token-response.hook';

export interface AuthDeps {
  transport: EventTransport;
}

const dbOptions = (config: AuthConfig) => ({
  url: config.DATABASE_URL,
  service: 'auth',
  entities: authEntities,
  migrations: authMigrations,
  poolSize: config.DB_POOL_SIZE,
});

export const authService: ServiceDefinition<AuthConfig, AuthDeps> = {
  name: 'auth',
  configClass: AuthConfig,
  migrate: async (config, logger) => {
    await runMigrations(dbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('auth', logger);
    const ds = createDataSource(dbOptions(config));
    await ds.initialize();
    ctx.readiness.add('database', databaseCheck(ds));
    ctx.readiness.add('events', () => deps.transport.check());
    const core = buildAuthCore(config, ds, logger);
    await core.keys.ensureActiveKey();
    const app = await createHttpApp({
      ctx,
      module: AuthModule.forRoot(config, ds, core),
      // RFC 6749 4.4 form bodies: Nest's Fastify adapter already parses application/x-www-form-urlencoded
      // (registering @fastify/formbody as well fails with "Content type parser already present").
      configure: async (fastify) => registerTokenResponseHook(fastify),
      docs: {
        title: 'Diamond Traceability Platform: auth API',
        description: 'OAuth 2.0 client-credentials token issuer, JWKS and participant onboarding ({auth_url}).',
        version: '1.35.0',
        bearer: false,
      },
    });
    if (deps.transport.kind === 'in-process') {
      // That bus keeps no log: re-announce the revocations whose tokens may still be alive, so the other services'
      // deny-lists (in memory, rebuilt from the topic at start) have them after a restart (docs/auth.md).
      const announced = await core.participants.announceRecentRevocations(config.TOKEN_TTL_SECONDS + 2 * 60);
      if (announced > 0) logger.info({ clients: announced }, 'recent client revocations announced again for the in-process bus');
    }
    const relay = new OutboxRelay({ service: 'auth', databaseUrl: config.DATABASE_URL, transport: deps.transport, logger, registry: ctx.metrics.registry });
    await relay.start();
    return listenService({
      name: 'auth',
      app,
      config,
      ctx,
      onClose: async () => {
        await relay.stop();
        await ds.destroy();
      },
    });
  },
};
