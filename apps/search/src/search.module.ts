import { DynamicModule, Module } from '@nestjs/common';
import { AuthGuardModule } from '@dtp/auth-guard';
import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { DatabaseModule } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { EventsModule, EventTransport } from '@dtp/events';
import { RateLimitModule, ServiceConfigModule } from '@dtp/service-kit';
import { SearchConfig } from './config';
import { CustodyModule } from './custody/custody.module';
import { DiamondsModule } from './diamonds/diamonds.module';
import { SEARCH_BLOB_STORE } from './diamonds/diamonds.service';
import { searchEntities } from './entities';
import { EpcisModule } from './epcis/epcis.module';
import { searchMigrations } from './migrations';
import { PassportModule } from './passport/passport.module';
import { ReadModelModule } from './read-model/read-model.module';

export interface SearchDeps {
  transport: EventTransport;
  /** Defaults to the store named by the config (BLOB_STORE, BLOB_STORE_DIR, S3_*). */
  blobStore?: BlobStore;
}

export const searchDbOptions = (config: Pick<SearchConfig, 'DATABASE_URL' | 'DB_POOL_SIZE'>) => ({
  url: config.DATABASE_URL,
  service: 'search',
  entities: searchEntities,
  migrations: searchMigrations,
  poolSize: config.DB_POOL_SIZE,
});

/** Infrastructure of search: config, database, events (a consumer only: search publishes nothing), blob store. */
@Module({})
export class SearchCoreModule {
  static forRoot(config: SearchConfig, deps: SearchDeps): DynamicModule {
    return {
      module: SearchCoreModule,
      global: true,
      imports: [
        ServiceConfigModule.forRoot('search', SearchConfig, config),
        DatabaseModule.forRoot(searchDbOptions(config)),
        EventsModule.forRoot({ service: 'search', group: ConsumerGroups.SEARCH, transport: deps.transport, databaseUrl: config.DATABASE_URL }),
      ],
      providers: [{ provide: SEARCH_BLOB_STORE, useFactory: () => deps.blobStore ?? blobStoreFromConfig(config) }],
      exports: [SEARCH_BLOB_STORE],
    };
  }
}

@Module({})
export class SearchModule {
  static forRoot(config: SearchConfig, deps: SearchDeps): DynamicModule {
    return {
      module: SearchModule,
      imports: [
        SearchCoreModule.forRoot(config, deps),
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.SEARCH_AUDIENCE)),
        // Per-client rate limits (RATE_LIMIT_*; off by default): after the guard, before everything else.
        RateLimitModule.forRoot(config),
        ReadModelModule,
        DiamondsModule,
        CustodyModule,
        EpcisModule,
        PassportModule,
      ],
    };
  }
}
