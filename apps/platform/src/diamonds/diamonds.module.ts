import { Global, Module } from '@nestjs/common';
import { GradedMeasurementsRepository } from '../graded-measurements/graded-measurements.repository';
import { ParticipantDirectory } from '../participants/participant-directory';
import { ParticipantsRepository } from '../participants/participants.repository';
import { ShipmentsRepository } from '../shipments/shipments.repository';
import { DiamondChanges } from './diamond-changes';
import { DiamondsRepository } from './diamonds.repository';

/** Repositories and the change writer every feature shares. */
@Global()
@Module({
  providers: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges, ParticipantsRepository, ParticipantDirectory, ShipmentsRepository],
  exports: [DiamondsRepository, GradedMeasurementsRepository, DiamondChanges, ParticipantsRepository, ParticipantDirectory, ShipmentsRepository],
})
export class DiamondsCoreModule {}
