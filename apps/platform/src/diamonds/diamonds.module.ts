import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondChanges } from './diamond-changes';
import { DiamondEntity } from './diamond.entity';
import { DiamondsRepository } from './diamonds.repository';
import { GradedMeasurementEntity } from './graded-measurement.entity';
import { GradedMeasurementsRepository } from './graded-measurements.repository';

/**
 * The diamond records: the `diamonds` table and, because a DiamondV1 record shows its active graded measurement,
 * the `graded_measurements` table (entity and repository live here, beside the diamond's), plus the change writer
 * (new version + outbox event). Every feature that reads or changes a diamond imports this module (the
 * graded-measurements endpoints among them); nothing else touches these tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DiamondEntity, GradedMeasurementEntity])],
  providers: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges],
  exports: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges],
})
export class DiamondsModule {}
