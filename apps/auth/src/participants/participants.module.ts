import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CredentialsModule } from '../credentials/credentials.module';
import { ParticipantEntity } from './participant.entity';
import { ParticipantsRepository } from './participants.repository';
import { ParticipantsService } from './participants.service';

/** Participants: onboarding, their credentials, revocation (with its events), client authentication. */
@Module({
  imports: [TypeOrmModule.forFeature([ParticipantEntity]), CredentialsModule],
  providers: [ParticipantsRepository, ParticipantsService],
  exports: [ParticipantsService, ParticipantsRepository],
})
export class ParticipantsModule {}
