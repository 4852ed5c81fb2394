import { documentIdempotencyKey, runMigrations } from '@dtp/database';
import { EVENTS_HYBRID_OPTIONS, eventsStrategy, registerEventHandlers } from '@dtp/events';
import { createHttpApp, DocsOptions, documentRateLimits, listenService, newServiceContext, previewOpenApiDocument, ServiceDefinition } from '@dtp/service-kit';
import { GisConfig } from './config';
import { gisDbOptions, GisDeps, GisModule } from './gis.module';

export type { GisDeps } from './gis.module';

/** What gis's OpenAPI document says about the service (its address, its token audience). */
export function gisDocs(config: GisConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: gis API',
    description: 'Grading integration: verify, validate, poll, history and grading submission ({gis_url}).',
    version: '1.35.0',
    serverUrl: config.PUBLIC_BASE_URL,
    security: config.openApiSecurity(config.GIS_AUDIENCE),
    transforms: [documentIdempotencyKey, documentRateLimits],
  };
}

/** gis: verify, validate, poll, history and grading submission. Everything else is in GisModule. */
export const gisService: ServiceDefinition<GisConfig, GisDeps> = {
  name: 'gis',
  configClass: GisConfig,
  migrate: async (config, logger) => {
    await runMigrations(gisDbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('gis', logger);
    const app = await createHttpApp({
      ctx,
      module: GisModule.forRoot(config, deps),
      docs: gisDocs(config),
    });
    // The @EventPattern handlers (platform.diamonds.v1, the deny-list) start after the server listens.
    const events = eventsStrategy(app);
    registerEventHandlers(app.connectMicroservice(events, EVENTS_HYBRID_OPTIONS), events.strategy);
    return listenService({ name: 'gis', app, config, ctx });
  },
  // Preview mode creates no provider: the dependencies are never touched.
  openapi: (config) => previewOpenApiDocument('gis', GisModule.forRoot(config, {} as GisDeps), gisDocs(config)),
};
