import multipart from '@fastify/multipart';
import { documentIdempotencyKey, runMigrations } from '@dtp/database';
import { EVENTS_HYBRID_OPTIONS, eventsStrategy, registerEventHandlers } from '@dtp/events';
import type { EventTransport } from '@dtp/events';
import { createHttpApp, DocsOptions, documentRateLimits, listenService, newServiceContext, previewOpenApiDocument, ServiceDefinition } from '@dtp/service-kit';
import { PlatformConfig } from './config';
import { platformDbOptions, PlatformDeps, PlatformModule } from './platform.module';

export type { PlatformDeps } from './platform.module';

/** What platform's OpenAPI document says about the service (its address, its token audience). */
export function platformDocs(config: PlatformConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: platform API',
    description: 'Registration, files, deletion, shipments and transfers, graded measurements ({base_url}).',
    version: '1.35.0',
    serverUrl: config.PUBLIC_BASE_URL,
    security: config.openApiSecurity(config.PLATFORM_AUDIENCE),
    transforms: [documentIdempotencyKey, documentRateLimits],
  };
}

/** platform: registration, files, deletion, shipments, graded measurements. Everything else is in PlatformModule. */
export const platformService: ServiceDefinition<PlatformConfig, PlatformDeps> = {
  name: 'platform',
  configClass: PlatformConfig,
  migrate: async (config, logger) => {
    await runMigrations(platformDbOptions(config), logger);
  },
  async start(config, deps, logger) {
    const ctx = newServiceContext('platform', logger);
    const app = await createHttpApp({
      ctx,
      module: PlatformModule.forRoot(config, deps),
      docs: platformDocs(config),
      configure: async (fastify) => {
        await fastify.register(multipart, { limits: { fileSize: config.FILE_SIZE_LIMIT_BYTES, files: 1, fields: 10, parts: 20 } });
      },
    });
    // The @EventPattern handlers (auth.participants.v1, gis.*, the deny-list) start after the server listens.
    const events = eventsStrategy(app);
    registerEventHandlers(app.connectMicroservice(events, EVENTS_HYBRID_OPTIONS), events.strategy);
    return listenService({ name: 'platform', app, config, ctx });
  },
  // Preview mode creates no provider: the transport is never touched.
  openapi: (config) =>
    previewOpenApiDocument('platform', PlatformModule.forRoot(config, { transport: undefined as unknown as EventTransport }), platformDocs(config)),
};
