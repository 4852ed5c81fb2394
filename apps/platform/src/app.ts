import multipart from '@fastify/multipart';
import { blobStoreFromConfig } from '@dtp/blob-store';
import { documentIdempotencyKey } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import type { OutboxRelayOptions } from '@dtp/events';
import { defineService, HostedServiceDeps } from '@dtp/service-host';
import { DocsOptions, documentRateLimits } from '@dtp/service-kit';
import { PlatformConfig } from './config';
import { CustodyModule } from './custody/custody.module';
import { DeletionModule } from './deletion/deletion.module';
import { platformEntities } from './entities';
import { FilesModule } from './files/files.module';
import { GisEventsModule } from './gis-events/gis-events.module';
import { GradedMeasurementsModule } from './graded-measurements/graded-measurements.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { platformMigrations } from './migrations';
import { ParticipantsModule } from './participants/participants.module';
import { RegistrationModule } from './registration/registration.module';
import { SharesModule } from './shares/shares.module';
import { ShipmentsModule } from './shipments/shipments.module';
import { BLOB_STORE, PLATFORM_CONFIG } from './tokens';
import { UnlockModule } from './unlock/unlock.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { documentWebhooks } from './webhooks/webhooks-openapi';

export { PLATFORM_CONFIG, BLOB_STORE };

export interface PlatformDeps extends HostedServiceDeps {
  /** Test-only fault injection into the outbox relay (e2e: a crash between publish and mark). */
  relayFaults?: Pick<OutboxRelayOptions, 'afterPublish'>;
}

/** What platform's OpenAPI document says about the service (its address, its token audience). */
export function platformDocs(config: PlatformConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: platform API',
    description: 'Registration, files, deletion, shipments and transfers, graded measurements ({base_url}).',
    version: '1.35.0',
    tags: {
      registration: 'Registering rough and polished diamonds, one at a time or in bulk.',
      diamonds: 'Changing a registered diamond: splitting, unlocking, passport share links.',
      files: 'Files attached to a diamond (scan reports, images, certificates).',
      lifecycle: 'Moving a diamond through its lifecycle (polishing, destruction).',
      'graded measurements': "A diamond's graded measurements: listing, adding, selecting the active one.",
      deletion: 'Deleting diamonds, in bulk, with the reasons an entry is refused.',
      'shipments and transfers': 'Sending diamonds to another participant and accepting or rejecting what is sent to you.',
      custody: 'The public keys that sign the custody log (for verifying proofs offline).',
      webhooks: "Events out to participants' systems: webhook subscriptions, their delivery log, and the event feed.",
    },
    serverUrl: config.PUBLIC_BASE_URL,
    security: config.openApiSecurity(config.PLATFORM_AUDIENCE),
    transforms: [documentIdempotencyKey, documentRateLimits, documentWebhooks],
  };
}

/** platform: registration, files, deletion, shipments, graded measurements (the @dtp/service-host skeleton). */
export const platformService = defineService<PlatformConfig, PlatformDeps>({
  name: 'platform',
  configClass: PlatformConfig,
  docs: platformDocs,
  database: { entities: platformEntities, migrations: platformMigrations },
  // Writes wake the relay after their commit (the outbox table has no NOTIFY trigger); the poll is the safety net.
  events: (config, deps) => ({
    group: ConsumerGroups.PLATFORM,
    relay: { wake: 'commit', pollIntervalMs: 500, retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS, ...deps?.relayFaults },
  }),
  providers: (config) => ({
    providers: [
      { provide: PLATFORM_CONFIG, useExisting: PlatformConfig },
      // BLOB_STORE=fs (default, BLOB_STORE_DIR) or s3 (S3_BUCKET, S3_ENDPOINT, ...): see @dtp/blob-store from-config.
      { provide: BLOB_STORE, useFactory: () => blobStoreFromConfig(config) },
    ],
    exports: [PLATFORM_CONFIG, BLOB_STORE],
  }),
  api: (config) => ({ tokens: config.tokenVerifierOptions(config.PLATFORM_AUDIENCE), rateLimits: config, idempotency: true }),
  features: [
    ParticipantsModule,
    RegistrationModule,
    FilesModule,
    DeletionModule,
    UnlockModule,
    GradedMeasurementsModule,
    GisEventsModule,
    ShipmentsModule,
    LifecycleModule,
    CustodyModule,
    SharesModule,
    WebhooksModule,
  ],
  configure: async (fastify, config) => {
    await fastify.register(multipart, { limits: { fileSize: config.FILE_SIZE_LIMIT_BYTES, files: 1, fields: 10, parts: 20 } });
  },
});
