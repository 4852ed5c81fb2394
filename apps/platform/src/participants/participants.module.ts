import { Module } from '@nestjs/common';
import { ParticipantsConsumer } from './participants.consumer';

@Module({ providers: [ParticipantsConsumer], exports: [ParticipantsConsumer] })
export class ParticipantsModule {}
