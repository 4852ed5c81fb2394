import { Module } from '@nestjs/common';
import { ReadModelModule } from '../read-model/read-model.module';
import { DiamondsController } from './diamonds.controller';
import { DiamondsService } from './diamonds.service';

/** The `/v1` API: diamonds, their ancestors and files, read from the read model. */
@Module({ imports: [ReadModelModule], controllers: [DiamondsController], providers: [DiamondsService] })
export class DiamondsModule {}
