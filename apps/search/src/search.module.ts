import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import type { BlobStore } from '@dtp/blob-store';
import { SearchConfig } from './config';
import { DiamondsController } from './diamonds/diamonds.controller';
import { DiamondsService, SEARCH_BLOB_STORE } from './diamonds/diamonds.service';
import { ReadModelRepository } from './read-model/read-model.repository';

export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');

@Module({})
export class SearchModule {
  static forRoot(config: SearchConfig, ds: DataSource, blobs: BlobStore): DynamicModule {
    return {
      module: SearchModule,
      global: true,
      imports: [AuthGuardModule.forRoot(config.tokenVerifierOptions(config.SEARCH_AUDIENCE))],
      controllers: [DiamondsController],
      providers: [
        { provide: SEARCH_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
        { provide: SEARCH_BLOB_STORE, useValue: blobs },
        { provide: ReadModelRepository, useValue: new ReadModelRepository(ds) },
        DiamondsService,
      ],
      exports: [SEARCH_CONFIG, DataSource],
    };
  }
}
