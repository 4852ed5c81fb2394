import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ScanReportEntity } from '../scan-reports/scan-report.entity';
import { ScanReportRepository } from '../scan-reports/scan-report.repository';
import { ScanReportsService } from '../scan-reports/scan-reports.service';
import { DiamondEventsController } from './diamond-events.controller';
import { DiamondsRepository } from './diamonds.repository';
import { EligibilityService } from './eligibility.service';
import { GisDiamondEntity } from './gis-diamond.entity';

/** Diamonds view, scan reports and eligibility: fed by platform.diamonds.v1, read by every endpoint. */
@Module({
  controllers: [DiamondEventsController],
  imports: [TypeOrmModule.forFeature([GisDiamondEntity, ScanReportEntity])],
  providers: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService],
  exports: [ScanReportRepository, ScanReportsService, DiamondsRepository, EligibilityService],
})
export class DiamondsModule {}
