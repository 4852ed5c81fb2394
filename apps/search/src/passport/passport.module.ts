import { Module } from '@nestjs/common';
import { CustodyModule } from '../custody/custody.module';
import { CustodyQueries } from '../custody/custody.queries';
import { ReadModelModule } from '../read-model/read-model.module';
import { PassportEventsController } from './passport-events.controller';
import { PassportLookupController } from './passport-lookup.controller';
import { PassportLookupService } from './passport-lookup.service';
import { PASSPORT_CUSTODY } from './passport.custody';
import { PassportController } from './passport.controller';
import { PassportRepository } from './passport.repository';
import { PassportService } from './passport.service';
import { SharePages } from './share-pages';

/**
 * The public diamond passport: `/passport/{share_id}` (HTML), its JSON and the verify bundle, and the consumers of
 * share links (platform.shares.v1) and participants' public names (auth.participants.v1); the public "look up by report
 * number" form (`/passport/lookup`).
 */
@Module({
  imports: [ReadModelModule, CustodyModule],
  controllers: [PassportLookupController, PassportController, PassportEventsController],
  providers: [PassportRepository, PassportService, PassportLookupService, SharePages, { provide: PASSPORT_CUSTODY, useExisting: CustodyQueries }],
  // The origin credential's passport route and the evidence page (CredentialModule) resolve share links through them.
  exports: [PassportService, SharePages],
})
export class PassportModule {}
