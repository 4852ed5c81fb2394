import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { SharesController } from './shares.controller';
import { SharesRepository } from './shares.repository';
import { SharesService } from './shares.service';

/** Passport share links: `POST/DELETE {base_url}/diamonds/{id}/share[/{share_id}]`. */
@Module({ imports: [DiamondsModule], controllers: [SharesController], providers: [SharesService, SharesRepository] })
export class SharesModule {}
