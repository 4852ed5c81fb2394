import { Module } from '@nestjs/common';
import { GradedMeasurementsModule } from '../graded-measurements/graded-measurements.module';
import { GisEventsConsumer } from './gis-events.consumer';

@Module({ imports: [GradedMeasurementsModule], providers: [GisEventsConsumer], exports: [GisEventsConsumer] })
export class GisEventsModule {}
