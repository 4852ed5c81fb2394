import { Module } from '@nestjs/common';
import { ParticipantsModule } from '../participants/participants.module';
import { AdminController } from './admin.controller';
import { AdminTokenGuard } from './admin-token.guard';

/** The admin API (onboarding, credentials, revocation), behind AUTH_ADMIN_TOKEN. */
@Module({
  imports: [ParticipantsModule],
  controllers: [AdminController],
  providers: [AdminTokenGuard],
})
export class AdminModule {}
