import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { ShipmentsModule } from '../shipments/shipments.module';
import { DeletionController } from './deletion.controller';
import { DeletionService } from './deletion.service';

@Module({ imports: [DiamondsModule, ShipmentsModule], controllers: [DeletionController], providers: [DeletionService] })
export class DeletionModule {}
