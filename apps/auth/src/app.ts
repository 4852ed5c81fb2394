import { runMigrations } from '@dtp/database';
import type { EventTransport } from '@dtp/events';
import type { FastifyInstance } from 'fastify';
import { createHttpApp, DocsOptions, listenService, newServiceContext, previewOpenApiDocument, RunningService, ServiceDefinition } from '@dtp/service-kit';
import { AuthConfig } from './config';
import { authDatabase } from './database/auth-database.module';
import { AuthModule } from './auth.module';
import { registerTokenResponseHook } from './token/token-response.hook';
import { registerAdminSeparation, startAdminListener } from './admin/admin-listener';

export interface AuthDeps {
  transport: EventTransport;
}

/** What auth's OpenAPI document says about the service (its address; the admin bearer scheme). */
export function authDocs(config: AuthConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: auth API',
    description: 'OAuth 2.0 client-credentials token issuer, JWKS and participant onboarding ({auth_url}).',
    version: '1.35.0',
    serverUrl: config.AUTH_ISSUER,
    security: false,
    adminBearer: true,
  };
}

export const authService: ServiceDefinition<AuthConfig, AuthDeps> = {
  name: 'auth',
  configClass: AuthConfig,
  migrate: async (config, logger) => {
    await runMigrations(authDatabase(config), logger);
  },
  async start(config, deps, logger) {
    if (config.live && !config.SIGNING_KEY_ENCRYPTION_KEY) {
      // Only possible with SIGNING_KEYS_UNENCRYPTED=true (config.ts): an explicit choice, said at every start.
      logger.warn('SIGNING_KEYS_UNENCRYPTED=true: the private signing keys are stored as plain JWK text in the database (set SIGNING_KEY_ENCRYPTION_KEY to encrypt them)');
    }
    const ctx = newServiceContext('auth', logger);
    const app = await createHttpApp({
      ctx,
      module: AuthModule.forRoot({ config, transport: deps.transport }),
      // RFC 6749 4.4 form bodies: Nest's Fastify adapter already parses application/x-www-form-urlencoded
      // (registering @fastify/formbody as well fails with "Content type parser already present").
      configure: async (fastify) => {
        registerTokenResponseHook(fastify);
        if (config.ADMIN_PORT !== undefined) registerAdminSeparation(fastify);
      },
      docs: authDocs(config),
    });
    const running = await listenService({ name: 'auth', app, config, ctx });
    if (config.ADMIN_PORT === undefined) return running;
    // The admin API's own listener (ADMIN_PORT): opened once the public one listens, closed after it drained.
    const admin = await startAdminListener(app.getHttpAdapter().getInstance() as unknown as FastifyInstance, config.ADMIN_PORT, config.HOST).catch(async (err: unknown) => {
      await running.close();
      throw err;
    });
    logger.info({ adminUrl: admin.url }, 'admin API on its own listener (ADMIN_PORT); the public port answers /admin/* 404');
    const service: RunningService & { adminUrl: string } = {
      ...running,
      adminUrl: admin.url,
      close: async () => {
        await running.close();
        await new Promise<void>((resolve) => admin.server.close(() => resolve()));
      },
    };
    return service;
  },
  // Preview mode creates no provider: the transport is never touched.
  openapi: (config) =>
    previewOpenApiDocument('auth', AuthModule.forRoot({ config, transport: undefined as unknown as EventTransport }), authDocs(config)),
};
