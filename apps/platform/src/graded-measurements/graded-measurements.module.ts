import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { GradedMeasurementsController } from './graded-measurements.controller';
import { GradedMeasurementsService } from './graded-measurements.service';

@Module({
  imports: [DiamondsModule],
  controllers: [GradedMeasurementsController],
  providers: [GradedMeasurementsService],
  exports: [GradedMeasurementsService],
})
export class GradedMeasurementsModule {}
