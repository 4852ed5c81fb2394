import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ParticipantsModule } from '../participants/participants.module';
import { ShipmentsModule } from '../shipments/shipments.module';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

/** Rough registration. What a box_id names comes from the BoxResolver that ShipmentsModule exports. */
@Module({
  imports: [DiamondsModule, ParticipantsModule, ShipmentsModule],
  controllers: [RegistrationController],
  providers: [RegistrationService],
  exports: [RegistrationService],
})
export class RegistrationModule {}
