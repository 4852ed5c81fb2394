import { Module } from '@nestjs/common';
import { GradedMeasurementsController } from './graded-measurements.controller';
import { GradedMeasurementsService } from './graded-measurements.service';

@Module({
  controllers: [GradedMeasurementsController],
  providers: [GradedMeasurementsService],
  exports: [GradedMeasurementsService],
})
export class GradedMeasurementsModule {}
