import { RevocationConsumer, startRevocationConsumer, TokenVerifier } from '@dtp/auth-guard';
import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { ConsumerGroups } from '@dtp/domain';
import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { EventTransport } from '@dtp/events';
import { BackgroundStart, createHttpApp, listenService, newServiceContext, ServiceDefinition, settled } from '@dtp/service-kit';
import { SearchConfig } from './config';
import { searchEntities } from './entities';
import { searchMigrations } from './migrations';
import { startDiamondsConsumer } from './read-model/diamonds-consumer';
import { SearchModule } from './search.module';

export interface SearchDeps {
  transport: EventTransport;
  /** Defaults to the store named by the config (BLOB_STORE, BLOB_STORE_DIR, S3_*). */
  blobStore?: BlobStore;
}

export const searchDbOptions = (config: Pick<SearchConfig, 'DATABASE_URL' | 'DB_POOL_SIZE'>) => ({
  url: config.DATABASE_URL,
  service: 'search',
  entities: searchEntities,
  migrations: searchMigrations,
  poolSize: config.DB_POOL_SIZE,
});

export { SearchConfig } from './config';
export { ReadModelRepository } from './read-model/read-model.repository';
export { SEARCH_CONSUMER, startDiamondsConsumer } from './read-model/diamonds-consumer';

export const searchService: ServiceDefinition<SearchConfig, SearchDeps> = {
  name: 'search',
  configClass: SearchConfig,
  migrate: async (config, logger) => {
    await runMigrations(searchDbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('search', logger);
    const ds = createDataSource(searchDbOptions(config));
    await ds.initialize();
    ctx.readiness.add('database', databaseCheck(ds));
    ctx.readiness.add('events', () => deps.transport.check());
    const blobs = deps.blobStore ?? blobStoreFromConfig(config);
    const app = await createHttpApp({
      ctx,
      module: SearchModule.forRoot(config, ds, blobs),
      docs: {
        title: 'Diamond Traceability Platform: search API',
        description:
          'Read-only search of diamond records, their ancestors and files ({search_url}/v1), for non-participants. ' +
          'Eventually consistent with platform: a change is typically visible within a fraction of a second.',
        version: '1.35.0',
      },
    });
    let consumer: Awaited<ReturnType<typeof startDiamondsConsumer>> | undefined;
    const denyList = app.get(TokenVerifier).denyList;
    let revocations: RevocationConsumer | undefined;
    // Served first, consumer group joined after: a restarted search answers at once (docs/events.md).
    const background = new BackgroundStart({
      component: 'consumers',
      readiness: ctx.readiness,
      logger,
      steps: [
        // First: the token deny-list (docs/auth.md "Revocation"), this instance's own group, replayed from the start.
        {
          name: 'the auth.participants.v1 revocation consumer (token deny-list)',
          start: async () => {
            revocations = await startRevocationConsumer({ transport: deps.transport, dataSource: ds, service: ConsumerGroups.SEARCH, denyList, logger, registry: ctx.metrics.registry });
          },
        },
        {
          name: 'the platform.diamonds.v1 consumer',
          start: async () => {
            consumer = await startDiamondsConsumer({ transport: deps.transport, dataSource: ds, logger, registry: ctx.metrics.registry });
          },
        },
      ],
    });
    const running = await listenService({
      name: 'search',
      app,
      config,
      ctx,
      onClose: async () => {
        await background.stop();
        await revocations?.close();
        await consumer?.close();
        await ds.destroy();
      },
    });
    await settled(background.begin(), config.CONSUMER_START_WAIT_MS);
    return running;
  },
};
export { rebuildReadModel } from './read-model/rebuild';
export type { RebuildResult } from './read-model/rebuild';
