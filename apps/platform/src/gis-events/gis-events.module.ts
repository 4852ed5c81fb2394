import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { GradedMeasurementsModule } from '../graded-measurements/graded-measurements.module';
import { GisEventsConsumer } from './gis-events.consumer';

@Module({ imports: [DiamondsModule, GradedMeasurementsModule], providers: [GisEventsConsumer], exports: [GisEventsConsumer] })
export class GisEventsModule {}
