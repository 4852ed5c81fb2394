import { DynamicModule, Module } from '@nestjs/common';
import { AuthGuardModule } from '@dtp/auth-guard';
import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { DatabaseModule } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { EventsModule, EventTransport } from '@dtp/events';
import { ServiceConfigModule } from '@dtp/service-kit';
import { BLOB_STORE, GIS_CONFIG } from './common/tokens';
import { GisConfig } from './config';
import { DiamondEventsController } from './diamonds/diamond-events.controller';
import { DiamondsRepository } from './diamonds/diamonds.repository';
import { EligibilityService } from './diamonds/eligibility.service';
import { GradingController } from './grading/grading.controller';
import { GradingService } from './grading/grading.service';
import { ScanReportRepository } from './scan-reports/scan-report.repository';
import { ScanReportsService } from './scan-reports/scan-reports.service';
import { ValidationController } from './validation/validation.controller';
import { ValidationRepository } from './validation/validation.repository';
import { ValidationService } from './validation/validation.service';
import { ValidationWorker } from './validation/validation.worker';
import { ValidationWorkerLifecycle } from './validation/validation-worker.lifecycle';
import { gisEntities } from './entities';
import { gisMigrations } from './migrations';
import { VerifyController } from './verify/verify.controller';
import { VerifyRepository } from './verify/verify.repository';
import { VerifyService } from './verify/verify.service';

export { GIS_CONFIG } from './common/tokens';

/** Diamonds view, scan reports and eligibility: fed by platform.diamonds.v1, read by every endpoint. */
@Module({
  controllers: [DiamondEventsController],
  providers: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService],
  exports: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService],
})
export class DiamondsModule {}

@Module({
  imports: [DiamondsModule],
  controllers: [VerifyController],
  providers: [VerifyRepository, VerifyService],
  exports: [VerifyRepository],
})
export class VerifyModule {}

@Module({
  imports: [DiamondsModule, VerifyModule],
  controllers: [ValidationController],
  providers: [ValidationRepository, ValidationService, ValidationWorker, ValidationWorkerLifecycle],
  exports: [ValidationRepository, ValidationWorker],
})
export class ValidationModule {}

@Module({
  imports: [DiamondsModule, ValidationModule],
  controllers: [GradingController],
  providers: [GradingService],
})
export class GradingModule {}

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
        EventsModule.forRoot({ service: 'gis', group: ConsumerGroups.GIS, transport: deps.transport, databaseUrl: config.DATABASE_URL, relay: {} }),
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
        DiamondsModule,
        VerifyModule,
        ValidationModule,
        GradingModule,
      ],
    };
  }
}
