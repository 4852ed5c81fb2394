import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { GradedMeasurementsModule } from '../graded-measurements/graded-measurements.module';
import { GisEventsController } from './gis-events.controller';

/** What GIS tells platform: the `gis.gradings.v1`, `gis.eligibility.v1` and `gis.validations.v1` event handlers. */
@Module({ imports: [DiamondsModule, GradedMeasurementsModule], controllers: [GisEventsController] })
export class GisEventsModule {}
