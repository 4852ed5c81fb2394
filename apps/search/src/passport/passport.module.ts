import { Module } from '@nestjs/common';
import { CustodyModule } from '../custody/custody.module';
import { CustodyQueries } from '../custody/custody.queries';
import { ReadModelModule } from '../read-model/read-model.module';
import { PassportEventsController } from './passport-events.controller';
import { PASSPORT_CUSTODY } from './passport.custody';
import { PassportController } from './passport.controller';
import { PassportRepository } from './passport.repository';
import { PassportService } from './passport.service';

/**
 * The public diamond passport: `/passport/{share_id}` (HTML), its JSON and the verify bundle, and the consumers of
 * share links (platform.shares.v1) and participants' public names (auth.participants.v1).
 */
@Module({
  imports: [ReadModelModule, CustodyModule],
  controllers: [PassportController, PassportEventsController],
  providers: [PassportRepository, PassportService, { provide: PASSPORT_CUSTODY, useExisting: CustodyQueries }],
})
export class PassportModule {}
