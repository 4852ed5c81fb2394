import type { FastifyInstance } from 'fastify';
import { defineService, HostedServiceDeps, serviceDatabase } from '@dtp/service-host';
import type { OpenAPIObject } from '@nestjs/swagger';
import { DocsOptions, MTLS_SCHEME, RunningService } from '@dtp/service-kit';
import type { DataSourceOptions } from '@dtp/database';
import { AdminModule } from './admin/admin.module';
import { registerAdminSeparation, startAdminListener } from './admin/admin-listener';
import { AuthConfig } from './config';
import { authEntities } from './entities';
import { KeyMaintenanceModule } from './keys/key-maintenance';
import { authMigrations } from './migrations';
import { ParticipantsModule } from './participants/participants.module';
import { RecentRevocationsModule } from './participants/recent-revocations.announcer';
import { registerTokenResponseHook } from './token/token-response.hook';
import { TokenModule } from './token/token.module';
import { AUTH_CONFIG } from './tokens';

export { AUTH_CONFIG };
export type AuthDeps = HostedServiceDeps;

/** What auth's OpenAPI document says about the service (its address; the admin bearer scheme). */
export function authDocs(config: AuthConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: auth API',
    description: 'OAuth 2.0 client-credentials token issuer, JWKS and participant onboarding ({auth_url}).',
    version: '1.35.0',
    tags: {
      oauth: 'OAuth 2.0 client credentials: the token endpoint and the keys that verify its tokens.',
      admin: "Operators' onboarding: participants, their credentials, revocation (admin token).",
    },
    serverUrl: config.AUTH_ISSUER,
    security: false,
    adminBearer: true,
    transforms: [documentTokenEndpointMtls],
  };
}

/**
 * The token endpoint also authenticates a client by its TLS certificate (RFC 8705 `self_signed_tls_client_auth`,
 * docs/auth.md "Mutual TLS"): the `mutualTLS` scheme, and the operation's security says "the body's credentials
 * (no scheme), or a client certificate".
 */
function documentTokenEndpointMtls(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.securitySchemes = {
    ...(document.components.securitySchemes ?? {}),
    [MTLS_SCHEME]: {
      type: 'mutualTLS',
      description:
        'Legacy integrations only (participants whose integration started before 2023-06-30): a client certificate registered by the operator, ' +
        'presented in the TLS handshake at the mutual TLS token endpoint (`mtls_endpoint_aliases.token_endpoint` of ' +
        '/.well-known/oauth-authorization-server). The client sends `client_id` and no secret; the token it gets carries `cnf.x5t#S256` (RFC 8705).',
    } as unknown as NonNullable<NonNullable<OpenAPIObject['components']>['securitySchemes']>[string],
  };
  const token = document.paths['/oauth/token']?.post;
  if (token) token.security = [{}, { [MTLS_SCHEME]: [] }];
  return document;
}

/**
 * auth: token endpoint and JWKS, admin API, signing key upkeep (the first key at start, scheduled rotation), and on
 * the in-process bus the re-announcement of recent revocations (the @dtp/service-host skeleton). It issues the
 * tokens the other services check, so it has no token guard of its own (the admin API has its bearer token).
 */
export const authService = defineService<AuthConfig, AuthDeps>({
  name: 'auth',
  configClass: AuthConfig,
  docs: authDocs,
  database: { entities: authEntities, migrations: authMigrations },
  // The outbox relay (participant.onboarded, client.revoked); auth consumes nothing.
  events: (config) => ({ relay: { retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS } }),
  providers: () => ({ providers: [{ provide: AUTH_CONFIG, useExisting: AuthConfig }], exports: [AUTH_CONFIG] }),
  features: [TokenModule, AdminModule, KeyMaintenanceModule, ParticipantsModule, RecentRevocationsModule],
  // RFC 6749 4.4 form bodies: the kit parses application/x-www-form-urlencoded for the routes marked
  // @TakesFormBody() (the token endpoint) and refuses it elsewhere (registerFormBodyParser).
  configure: (fastify, config) => {
    registerTokenResponseHook(fastify);
    if (config.ADMIN_PORT !== undefined) registerAdminSeparation(fastify);
  },
  beforeStart: (config, logger) => {
    if (config.live && !config.SIGNING_KEY_ENCRYPTION_KEY) {
      // Only possible with SIGNING_KEYS_UNENCRYPTED=true (config.ts): an explicit choice, said at every start.
      logger.warn(
        'SIGNING_KEYS_UNENCRYPTED=true: the private signing keys are stored as plain JWK text in the database (set SIGNING_KEY_ENCRYPTION_KEY to encrypt them)',
      );
    }
  },
  // The admin API's own listener (ADMIN_PORT): opened once the public one listens, closed after it drained.
  afterListen: async (running, config, logger) => {
    if (config.ADMIN_PORT === undefined) return running;
    const admin = await startAdminListener(running.app.getHttpAdapter().getInstance() as unknown as FastifyInstance, config.ADMIN_PORT, config.HOST);
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
});

/** The auth database's options for a connection of its own (`auth:cli`, tools). */
export function authDatabase(config: AuthConfig, connection: { service?: string; poolSize?: number } = {}): DataSourceOptions {
  const options = serviceDatabase(authService.spec, { DATABASE_URL: config.DATABASE_URL, DB_POOL_SIZE: connection.poolSize ?? config.DB_POOL_SIZE });
  return { ...options, service: connection.service ?? options.service };
}
