import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { DiamondShareEntity } from './diamond-share.entity';
import { SharesController } from './shares.controller';
import { SharesRepository } from './shares.repository';
import { SharesService } from './shares.service';

/** Passport share links: `POST/DELETE {base_url}/diamonds/{id}/share[/{share_id}]`. */
@Module({
  imports: [DiamondsModule, TypeOrmModule.forFeature([DiamondShareEntity])],
  controllers: [SharesController],
  providers: [SharesService, SharesRepository],
})
export class SharesModule {}
