import { Module } from '@nestjs/common';
import { CustodyEventsController } from './custody-events.controller';
import { CustodyController } from './custody.controller';
import { CustodyQueries } from './custody.queries';
import { CustodyRepository } from './custody.repository';

/**
 * Search's copy of the custody log: the platform.custody.v1 consumer that builds it, the `/v1` custody routes, and
 * CustodyQueries (exported: the EPCIS export and the passport's public custody JSON answer from it too).
 */
@Module({
  controllers: [CustodyEventsController, CustodyController],
  providers: [CustodyRepository, CustodyQueries],
  exports: [CustodyQueries],
})
export class CustodyModule {}
