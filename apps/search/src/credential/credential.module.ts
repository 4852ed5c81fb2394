import { Module } from '@nestjs/common';
import { CustodyModule } from '../custody/custody.module';
import { PassportModule } from '../passport/passport.module';
import { ReadModelModule } from '../read-model/read-model.module';
import { CredentialController } from './credential.controller';
import { CredentialService } from './credential.service';
import { PassportCredentialController } from './passport-credential.controller';

/**
 * Origin credentials (DESIGN.md "Looking a diamond up by what people hold"): `GET /v1/diamonds/{id}/credential`
 * (non-participants, as the custody route) and `GET /passport/{share_id}/credential` (a live share link, no token).
 */
@Module({
  imports: [CustodyModule, ReadModelModule, PassportModule],
  controllers: [CredentialController, PassportCredentialController],
  providers: [CredentialService],
})
export class CredentialModule {}
