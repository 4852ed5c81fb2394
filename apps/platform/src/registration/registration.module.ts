import { Module } from '@nestjs/common';
import { BoxResolver, OwnBoxResolver } from './box-resolver';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

@Module({
  controllers: [RegistrationController],
  providers: [RegistrationService, { provide: BoxResolver, useClass: OwnBoxResolver }],
  exports: [RegistrationService],
})
export class RegistrationModule {}
