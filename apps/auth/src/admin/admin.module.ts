import { Module } from '@nestjs/common';
import { ClientCertificatesModule } from '../certificates/client-certificates.module';
import { ParticipantsModule } from '../participants/participants.module';
import { AdminController } from './admin.controller';
import { AdminTokenGuard } from './admin-token.guard';

/** The admin API (onboarding, credentials, revocation, legacy client certificates), behind AUTH_ADMIN_TOKEN. */
@Module({
  imports: [ParticipantsModule, ClientCertificatesModule],
  controllers: [AdminController],
  providers: [AdminTokenGuard],
})
export class AdminModule {}
