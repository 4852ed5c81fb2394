import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import type { BlobStore } from '@dtp/blob-store';
import { BLOB_STORE, GIS_CONFIG } from './common/tokens';
import { GisConfig } from './config';
import { DiamondEventsConsumer } from './diamonds/diamond-events.consumer';
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
import { VerifyController } from './verify/verify.controller';
import { VerifyRepository } from './verify/verify.repository';
import { VerifyService } from './verify/verify.service';

export { GIS_CONFIG } from './common/tokens';

/** Diamonds view, scan reports and eligibility: fed by platform.diamonds.v1, read by every endpoint. */
@Module({
  providers: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService, DiamondEventsConsumer],
  exports: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService, DiamondEventsConsumer],
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
  providers: [ValidationRepository, ValidationService, ValidationWorker],
  exports: [ValidationRepository, ValidationWorker],
})
export class ValidationModule {}

@Module({
  imports: [DiamondsModule, ValidationModule],
  controllers: [GradingController],
  providers: [GradingService],
})
export class GradingModule {}

@Module({})
export class GisModule {
  static forRoot(config: GisConfig, ds: DataSource, blobStore: BlobStore): DynamicModule {
    return {
      module: GisModule,
      global: true,
      imports: [
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.GIS_AUDIENCE)),
        DiamondsModule,
        VerifyModule,
        ValidationModule,
        GradingModule,
      ],
      providers: [
        { provide: GIS_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
        { provide: BLOB_STORE, useValue: blobStore },
      ],
      exports: [GIS_CONFIG, DataSource, BLOB_STORE],
    };
  }
}
