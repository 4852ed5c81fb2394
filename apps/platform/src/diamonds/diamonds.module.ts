import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GradedMeasurementEntity } from '../graded-measurements/graded-measurement.entity';
import { GradedMeasurementsRepository } from '../graded-measurements/graded-measurements.repository';
import { DiamondChanges } from './diamond-changes';
import { DiamondEntity } from './diamond.entity';
import { DiamondsRepository } from './diamonds.repository';

/**
 * The diamond records: the `diamonds` table and, because a DiamondV1 record shows its active graded measurement,
 * the `graded_measurements` table's repository too, plus the change writer (new version + outbox event). Every
 * feature that reads or changes a diamond imports this module; nothing else touches these tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DiamondEntity, GradedMeasurementEntity])],
  providers: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges],
  exports: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges],
})
export class DiamondsModule {}
