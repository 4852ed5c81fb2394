import { createDataSource, databaseCheck, runMigrations } from '@dtp/database';
import { EventTransport, OutboxRelay } from '@dtp/events';
import { createHttpApp, listenService, newServiceContext, ServiceDefinition } from '@dtp/service-kit';
import { GisConfig } from './config';
import { gisEntities } from './entities';
import { gisMigrations } from './migrations';
import { GisModule } from './gis.module';

export interface GisDeps {
  transport: EventTransport;
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
    const app = await createHttpApp({
      ctx,
      module: GisModule.forRoot(config, ds),
      docs: {
        title: 'Diamond Traceability Platform: gis API',
        description: 'Grading integration: verify, validate, poll, history and grading submission ({gis_url}).',
        version: '1.35.0',
      },
    });
    const relay = new OutboxRelay({ service: 'gis', databaseUrl: config.DATABASE_URL, transport: deps.transport, logger, registry: ctx.metrics.registry });
    await relay.start();
    return listenService({
      name: 'gis',
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
