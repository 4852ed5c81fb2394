import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantsModule } from '../participants/participants.module';
import { ShipmentsModule } from '../shipments/shipments.module';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';
import { RegistrationWriter } from './registration-writer';

/**
 * Rough registration. What a box_id names comes from the BoxResolver that ShipmentsModule exports; the hot path's
 * writes go through RegistrationWriter (registrations arriving together share a statement).
 */
@Module({
  imports: [DiamondsModule, ParticipantsModule, ShipmentsModule],
  controllers: [RegistrationController],
  providers: [RegistrationService, RegistrationWriter],
  exports: [RegistrationService],
})
export class RegistrationModule {}
