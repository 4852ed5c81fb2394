import multipart from '@fastify/multipart';
import { RevocationConsumer, startRevocationConsumer, TokenVerifier } from '@dtp/auth-guard';
import { ConsumerGroups } from '@dtp/domain';
import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { EventTransport, OutboxRelay } from '@dtp/events';
import { BackgroundStart, createHttpApp, listenService, newServiceContext, ServiceDefinition, settled } from '@dtp/service-kit';
import { PlatformConfig } from './config';
import { platformEntities } from './entities';
import { platformMigrations } from './migrations';
import { PlatformDb } from './db/platform-db';
import { GisEventsConsumer } from './gis-events/gis-events.consumer';
import { ParticipantsConsumer } from './participants/participants.consumer';
import { PlatformModule } from './platform.module';

export interface PlatformDeps {
  transport: EventTransport;
}

const dbOptions = (config: PlatformConfig) => ({
  url: config.DATABASE_URL,
  service: 'platform',
  entities: platformEntities,
  migrations: platformMigrations,
  poolSize: config.DB_POOL_SIZE,
});

export const platformService: ServiceDefinition<PlatformConfig, PlatformDeps> = {
  name: 'platform',
  configClass: PlatformConfig,
  migrate: async (config, logger) => {
    await runMigrations(dbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('platform', logger);
    const ds = createDataSource(dbOptions(config));
    await ds.initialize();
    ctx.readiness.add('database', databaseCheck(ds));
    ctx.readiness.add('events', () => deps.transport.check());
    const app = await createHttpApp({
      ctx,
      module: PlatformModule.forRoot(config, ds),
      docs: {
        title: 'Diamond Traceability Platform: platform API',
        description: 'Registration, files, deletion, shipments and transfers, graded measurements ({base_url}).',
        version: '1.35.0',
      },
      configure: async (fastify) => {
        await fastify.register(multipart, { limits: { fileSize: config.FILE_SIZE_LIMIT_BYTES, files: 1, fields: 10, parts: 20 } });
      },
    });
    const participants = app.get(ParticipantsConsumer);
    const denyList = app.get(TokenVerifier).denyList;
    let revocations: RevocationConsumer | undefined;
    const gisEvents = app.get(GisEventsConsumer);
    // Writes wake the relay themselves (db/outbox-signal.ts); the poll is the safety net.
    const relay = new OutboxRelay({ service: 'platform', databaseUrl: config.DATABASE_URL, transport: deps.transport, logger, registry: ctx.metrics.registry, pollIntervalMs: 500 });
    const db = app.get(PlatformDb);
    db.signal.attachRelay(() => relay.poke());
    await relay.start();
    // Served first, consumer groups joined after: a restarted platform answers at once (docs/events.md).
    const consumers = new BackgroundStart({
      component: 'consumers',
      readiness: ctx.readiness,
      logger,
      steps: [
        // First: the token deny-list (docs/auth.md "Revocation"), this instance's own group, replayed from the start.
        {
          name: 'the auth.participants.v1 revocation consumer (token deny-list)',
          start: async () => {
            revocations = await startRevocationConsumer({ transport: deps.transport, dataSource: ds, service: ConsumerGroups.PLATFORM, denyList, logger, registry: ctx.metrics.registry });
          },
        },
        { name: 'the auth.participants.v1 consumer', start: () => participants.start(deps.transport, logger, ctx.metrics.registry) },
        { name: 'the gis.gradings.v1 consumer', start: () => gisEvents.start(deps.transport, logger, ctx.metrics.registry) },
      ],
    });
    const running = await listenService({
      name: 'platform',
      app,
      config,
      ctx,
      onClose: async () => {
        db.signal.close();
        await consumers.stop();
        await revocations?.close();
        await participants.stop();
        await gisEvents.stop();
        await relay.stop();
        await ds.destroy();
      },
    });
    await settled(consumers.begin(), config.CONSUMER_START_WAIT_MS);
    return running;
  },
};
