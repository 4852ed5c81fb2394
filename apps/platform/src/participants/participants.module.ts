import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantDirectory } from './participant-directory';
import { ParticipantEventsController } from './participant-events.controller';
import { ParticipantsRepository } from './participants.repository';

/**
 * What platform knows about participants (from auth.participants.v1): the cached directory others ask, the
 * repository (registration reads a producer's row inside its own transaction, under the participant lock), and
 * the auth.participants.v1 event handler that keeps both current.
 */
@Module({
  imports: [DiamondsModule],
  controllers: [ParticipantEventsController],
  providers: [ParticipantsRepository, ParticipantDirectory],
  exports: [ParticipantDirectory, ParticipantsRepository],
})
export class ParticipantsModule {}
