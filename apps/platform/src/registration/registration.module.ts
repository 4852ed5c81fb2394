import { Module } from '@nestjs/common';
import { ShipmentBoxResolver } from '../shipments/shipment-box.resolver';
import { BoxResolver } from './box-resolver';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

@Module({
  controllers: [RegistrationController],
  providers: [RegistrationService, { provide: BoxResolver, useClass: ShipmentBoxResolver }],
  exports: [RegistrationService],
})
export class RegistrationModule {}
