import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { EventTransport } from '@dtp/events';
import { createHttpApp, listenService, newServiceContext, ServiceDefinition } from '@dtp/service-kit';
import { SearchConfig } from './config';
import { searchEntities } from './entities';
import { searchMigrations } from './migrations';
import { SearchModule } from './search.module';

export interface SearchDeps {
  transport: EventTransport;
}

const dbOptions = (config: SearchConfig) => ({
  url: config.DATABASE_URL,
  service: 'search',
  entities: searchEntities,
  migrations: searchMigrations,
  poolSize: config.DB_POOL_SIZE,
});

export const searchService: ServiceDefinition<SearchConfig, SearchDeps> = {
  name: 'search',
  configClass: SearchConfig,
  migrate: async (config, logger) => {
    await runMigrations(dbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('search', logger);
    const ds = createDataSource(dbOptions(config));
    await ds.initialize();
    ctx.readiness.add('database', databaseCheck(ds));
    ctx.readiness.add('events', () => deps.transport.check());
    const app = await createHttpApp({
      ctx,
      module: SearchModule.forRoot(config, ds),
      docs: {
        title: 'Diamond Traceability Platform: search API',
        description: 'Read-only search of diamond records, their ancestors and files ({search_url}/v1).',
        version: '1.35.0',
      },
    });
    return listenService({
      name: 'search',
      app,
      config,
      ctx,
      onClose: async () => {
        await ds.destroy();
      },
    });
  },
};
