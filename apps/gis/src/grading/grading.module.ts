import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ValidationModule } from '../validation/validation.module';
import { GradingController } from './grading.controller';
import { GradingRepository } from './grading.repository';
import { GradingService } from './grading.service';

/** Grading submission: stored in `gradings` and published on gis.gradings.v1. */
@Module({
  imports: [DiamondsModule, ValidationModule],
  controllers: [GradingController],
  providers: [GradingRepository, GradingService],
})
export class GradingModule {}
