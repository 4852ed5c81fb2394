import { Module } from '@nestjs/common';
import { entityRepositories } from '../common/entity-repositories';
import { ScanReportEntity } from '../scan-reports/scan-report.entity';
import { ScanReportRepository } from '../scan-reports/scan-report.repository';
import { ScanReportsService } from '../scan-reports/scan-reports.service';
import { DiamondEventsConsumer } from './diamond-events.consumer';
import { DiamondsRepository } from './diamonds.repository';
import { EligibilityService } from './eligibility.service';
import { GisDiamondEntity } from './gis-diamond.entity';

/** Diamonds view, scan reports and eligibility: fed by platform.diamonds.v1, read by every endpoint. */
@Module({
  providers: [
    ...entityRepositories([GisDiamondEntity, ScanReportEntity]),
    ScanReportRepository,
    ScanReportsService,
    DiamondsRepository,
    EligibilityService,
    DiamondEventsConsumer,
  ],
  exports: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService, DiamondEventsConsumer],
})
export class DiamondsModule {}
