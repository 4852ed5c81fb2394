import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantEntity } from './participant.entity';
import { ParticipantDirectory } from './participant-directory';
import { ParticipantEventsController } from './participant-events.controller';
import { ParticipantsRepository } from './participants.repository';

/**
 * What platform knows about participants (from auth.participants.v1): the cached directory others ask, the
 * repository (registration reads a producer's row inside its own transaction, under the participant lock), and
 * the auth.participants.v1 event handler that keeps both current.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ParticipantEntity]), DiamondsModule],
  controllers: [ParticipantEventsController],
  providers: [ParticipantsRepository, ParticipantDirectory],
  exports: [ParticipantDirectory, ParticipantsRepository],
})
export class ParticipantsModule {}
