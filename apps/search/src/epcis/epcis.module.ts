import { Module } from '@nestjs/common';
import { CustodyModule } from '../custody/custody.module';
import { ReadModelModule } from '../read-model/read-model.module';
import { EpcisController } from './epcis.controller';
import { EpcisService } from './epcis.service';

/** `GET /v1/diamonds/{id}/epcis`: the custody chain mapped to GS1 EPCIS 2.0 (epcis.mapper.ts). */
@Module({ imports: [CustodyModule, ReadModelModule], controllers: [EpcisController], providers: [EpcisService] })
export class EpcisModule {}
