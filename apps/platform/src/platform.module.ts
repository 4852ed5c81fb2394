import { DynamicModule, Module } from '@nestjs/common';
import { AuthGuardModule } from '@dtp/auth-guard';
import { blobStoreFromConfig } from '@dtp/blob-store';
import { DatabaseModule, IdempotencyModule } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { EventsModule, EventTransport, OutboxRelayOptions } from '@dtp/events';
import { RateLimitModule, ServiceConfigModule } from '@dtp/service-kit';
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

export { PLATFORM_CONFIG, BLOB_STORE };

export interface PlatformDeps {
  transport: EventTransport;
  /** Test-only fault injection into the outbox relay (e2e: a crash between publish and mark). */
  relayFaults?: Pick<OutboxRelayOptions, 'afterPublish'>;
}

export const platformDbOptions = (config: PlatformConfig) => ({
  url: config.DATABASE_URL,
  service: 'platform',
  entities: platformEntities,
  migrations: platformMigrations,
  poolSize: config.DB_POOL_SIZE,
});

/** Infrastructure every feature of platform uses: config, database (UnitOfWork), events, the blob store. */
@Module({})
export class PlatformCoreModule {
  static forRoot(config: PlatformConfig, deps: PlatformDeps): DynamicModule {
    return {
      module: PlatformCoreModule,
      global: true,
      imports: [
        ServiceConfigModule.forRoot('platform', PlatformConfig, config),
        DatabaseModule.forRoot(platformDbOptions(config)),
        // Writes wake the relay after their commit (the outbox table has no NOTIFY trigger); the poll is the safety net.
        EventsModule.forRoot({
          service: 'platform',
          group: ConsumerGroups.PLATFORM,
          transport: deps.transport,
          databaseUrl: config.DATABASE_URL,
          relay: { wake: 'commit', pollIntervalMs: 500, retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS, ...deps.relayFaults },
        }),
      ],
      providers: [
        { provide: PLATFORM_CONFIG, useExisting: PlatformConfig },
        // BLOB_STORE=fs (default, BLOB_STORE_DIR) or s3 (S3_BUCKET, S3_ENDPOINT, ...): see @dtp/blob-store from-config.
        { provide: BLOB_STORE, useFactory: () => blobStoreFromConfig(config) },
      ],
      exports: [PLATFORM_CONFIG, BLOB_STORE],
    };
  }
}

@Module({})
export class PlatformModule {
  static forRoot(config: PlatformConfig, deps: PlatformDeps): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        PlatformCoreModule.forRoot(config, deps),
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.PLATFORM_AUDIENCE)),
        // Per-client rate limits (RATE_LIMIT_*; off by default): after the guard, before everything else.
        RateLimitModule.forRoot(config),
        // Idempotency-Key on every POST and PATCH (DESIGN.md "Idempotency-Key").
        IdempotencyModule,
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
      ],
    };
  }
}
