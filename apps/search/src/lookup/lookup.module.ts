import { Module } from '@nestjs/common';
import { LookupController } from './lookup.controller';
import { LookupService } from './lookup.service';

/** `GET /v1/lookup`: diamonds by what people hold, from the read model's lookup columns. */
@Module({ controllers: [LookupController], providers: [LookupService] })
export class LookupModule {}
