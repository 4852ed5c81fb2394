import { RevocationConsumer, startRevocationConsumer, TokenVerifier } from '@dtp/auth-guard';
import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { ConsumerGroups } from '@dtp/domain';
import { EventTransport, OutboxRelay } from '@dtp/events';
import { BackgroundStart, createHttpApp, listenService, newServiceContext, ServiceDefinition, settled } from '@dtp/service-kit';
import { GisConfig } from './config';
import { DiamondEventsConsumer } from './diamonds/diamond-events.consumer';
import { gisEntities } from './entities';
import { gisMigrations } from './migrations';
import { GisModule } from './gis.module';
import { ValidationWorker } from './validation/validation.worker';

export interface GisDeps {
  transport: EventTransport;
  /** Where scan reports are read from; default: from config (BLOB_STORE=fs with BLOB_STORE_DIR, or s3 with S3_*). */
  blobStore?: BlobStore;
}

const dbOptions = (config: GisConfig) => ({
  url: config.DATABASE_URL,
  service: 'gis',
  entities: gisEntities,
  migrations: gisMigrations,
  poolSize: config.DB_POOL_SIZE,
});

export const gisService: ServiceDefinition<GisConfig, GisDeps> = {
  name: 'gis',
  configClass: GisConfig,
  migrate: async (config, logger) => {
    await runMigrations(dbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('gis', logger);
    const ds = createDataSource(dbOptions(config));
    await ds.initialize();
    ctx.readiness.add('database', databaseCheck(ds));
    ctx.readiness.add('events', () => deps.transport.check());
    const blobStore = deps.blobStore ?? blobStoreFromConfig(config);
    const app = await createHttpApp({
      ctx,
      module: GisModule.forRoot(config, ds, blobStore),
      docs: {
        title: 'Diamond Traceability Platform: gis API',
        description: 'Grading integration: verify, validate, poll, history and grading submission ({gis_url}).',
        version: '1.35.0',
      },
    });
    const relay = new OutboxRelay({ service: 'gis', databaseUrl: config.DATABASE_URL, transport: deps.transport, logger, registry: ctx.metrics.registry });
    await relay.start();
    const consumer = app.get(DiamondEventsConsumer);
    const worker = app.get(ValidationWorker);
    const denyList = app.get(TokenVerifier).denyList;
    let revocations: RevocationConsumer | undefined;
    if (config.validationWorkerEnabled) await worker.start();
    // Served first, consumer group joined after: a restarted gis answers at once (docs/events.md).
    const background = new BackgroundStart({
      component: 'consumers',
      readiness: ctx.readiness,
      logger,
      steps: [
        // First: the token deny-list (docs/auth.md "Revocation"), this instance's own group, replayed from the start.
        {
          name: 'the auth.participants.v1 revocation consumer (token deny-list)',
          start: async () => {
            revocations = await startRevocationConsumer({ transport: deps.transport, dataSource: ds, service: ConsumerGroups.GIS, denyList, logger, registry: ctx.metrics.registry });
          },
        },
        { name: 'the platform.diamonds.v1 consumer', start: () => consumer.start(deps.transport) },
      ],
    });
    const running = await listenService({
      name: 'gis',
      app,
      config,
      ctx,
      onClose: async () => {
        await background.stop();
        await revocations?.close();
        await consumer.stop();
        await worker.stop();
        await relay.stop();
        await ds.destroy();
      },
    });
    await settled(background.begin(), config.CONSUMER_START_WAIT_MS);
    return running;
  },
};
