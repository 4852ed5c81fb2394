import { DynamicModule, Module } from '@nestjs/common';
import { AuthGuardModule } from '@dtp/auth-guard';
import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { DatabaseModule, IdempotencyModule } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { EventsModule, EventTransport } from '@dtp/events';
import { RateLimitModule, ServiceConfigModule } from '@dtp/service-kit';
import { BLOB_STORE, GIS_CONFIG } from './common/tokens';
import { GisConfig } from './config';
import { DiamondsModule } from './diamonds/diamonds.module';
import { gisEntities } from './entities';
import { GradingModule } from './grading/grading.module';
import { gisMigrations } from './migrations';
import { ValidationModule } from './validation/validation.module';
import { VerifyModule } from './verify/verify.module';

export { GIS_CONFIG } from './common/tokens';

export interface GisDeps {
  transport: EventTransport;
  /** Where scan reports are read from; default: from config (BLOB_STORE=fs with BLOB_STORE_DIR, or s3 with S3_*). */
  blobStore?: BlobStore;
}

export const gisDbOptions = (config: GisConfig) => ({
  url: config.DATABASE_URL,
  service: 'gis',
  entities: gisEntities,
  migrations: gisMigrations,
  poolSize: config.DB_POOL_SIZE,
});

/** Infrastructure of gis: config, database, events (consumer of platform.diamonds.v1, publisher of gis.*), blob store. */
@Module({})
export class GisCoreModule {
  static forRoot(config: GisConfig, deps: GisDeps): DynamicModule {
    return {
      module: GisCoreModule,
      global: true,
      imports: [
        ServiceConfigModule.forRoot('gis', GisConfig, config),
        DatabaseModule.forRoot(gisDbOptions(config)),
        EventsModule.forRoot({ service: 'gis', group: ConsumerGroups.GIS, transport: deps.transport, databaseUrl: config.DATABASE_URL, relay: { retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS } }),
      ],
      providers: [
        { provide: GIS_CONFIG, useExisting: GisConfig },
        { provide: BLOB_STORE, useFactory: () => deps.blobStore ?? blobStoreFromConfig(config) },
      ],
      exports: [GIS_CONFIG, BLOB_STORE],
    };
  }
}

@Module({})
export class GisModule {
  static forRoot(config: GisConfig, deps: GisDeps): DynamicModule {
    return {
      module: GisModule,
      imports: [
        GisCoreModule.forRoot(config, deps),
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.GIS_AUDIENCE)),
        // Per-client rate limits (RATE_LIMIT_*; off by default): after the guard, before everything else.
        RateLimitModule.forRoot(config),
        // Idempotency-Key on every POST and PATCH (DESIGN.md "Idempotency-Key").
        IdempotencyModule,
        DiamondsModule,
        VerifyModule,
        ValidationModule,
        GradingModule,
      ],
    };
  }
}
