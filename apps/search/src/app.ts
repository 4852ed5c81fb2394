import { runMigrations } from '@dtp/database';
import { EVENTS_HYBRID_OPTIONS, eventsStrategy, registerEventHandlers } from '@dtp/events';
import { createHttpApp, DocsOptions, documentRateLimits, listenService, newServiceContext, previewOpenApiDocument, ServiceDefinition } from '@dtp/service-kit';
import { SearchConfig } from './config';
import { SearchDeps, searchDbOptions, SearchModule } from './search.module';

export { SearchConfig } from './config';
export { searchDbOptions } from './search.module';
export type { SearchDeps } from './search.module';
export { ReadModelRepository } from './read-model/read-model.repository';
export { SEARCH_CONSUMER } from './read-model/diamond-events.controller';
export { rebuildReadModel } from './read-model/rebuild';
export type { RebuildResult } from './read-model/rebuild';

/** What search's OpenAPI document says about the service (its address, its token audience). */
export function searchDocs(config: SearchConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: search API',
    description:
      'Read-only search of diamond records, their ancestors and files ({search_url}/v1), for non-participants. ' +
      'Eventually consistent with platform: a change is typically visible within a fraction of a second.',
    version: '1.35.0',
    // The audience is {search_url}/v1; the operations' paths carry the /v1 themselves.
    serverUrl: config.SEARCH_AUDIENCE.replace(/\/v1\/?$/, ''),
    security: config.openApiSecurity(config.SEARCH_AUDIENCE),
    transforms: [documentRateLimits],
  };
}

/** search: the read-only `/v1` API over a read model fed by platform.diamonds.v1. Everything else is in SearchModule. */
export const searchService: ServiceDefinition<SearchConfig, SearchDeps> = {
  name: 'search',
  configClass: SearchConfig,
  migrate: async (config, logger) => {
    await runMigrations(searchDbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('search', logger);
    const app = await createHttpApp({
      ctx,
      module: SearchModule.forRoot(config, deps),
      docs: searchDocs(config),
    });
    // The @EventPattern handlers (platform.diamonds.v1, the deny-list) start after the server listens.
    const events = eventsStrategy(app);
    registerEventHandlers(app.connectMicroservice(events, EVENTS_HYBRID_OPTIONS), events.strategy);
    return listenService({ name: 'search', app, config, ctx });
  },
  // Preview mode creates no provider: the dependencies are never touched.
  openapi: (config) => previewOpenApiDocument('search', SearchModule.forRoot(config, {} as SearchDeps), searchDocs(config)),
};
