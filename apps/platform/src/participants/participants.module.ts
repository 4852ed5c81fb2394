import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantDirectory } from './participant-directory';
import { ParticipantsConsumer } from './participants.consumer';
import { ParticipantsRepository } from './participants.repository';

/**
 * What platform knows about participants (from auth.participants.v1): the cached directory others ask, the
 * repository (registration reads a producer's row inside its own transaction, under the participant lock), and
 * the consumer that keeps both current.
 */
@Module({
  imports: [DiamondsModule],
  providers: [ParticipantsRepository, ParticipantDirectory, ParticipantsConsumer],
  exports: [ParticipantDirectory, ParticipantsRepository, ParticipantsConsumer],
})
export class ParticipantsModule {}
