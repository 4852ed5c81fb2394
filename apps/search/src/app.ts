import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import type { DataSourceOptions } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { defineService, HostedServiceDeps, serviceDatabase } from '@dtp/service-host';
import { DocsOptions, documentRateLimits } from '@dtp/service-kit';
import { SearchConfig } from './config';
import { CredentialModule } from './credential/credential.module';
import { CustodyModule } from './custody/custody.module';
import { DiamondsModule } from './diamonds/diamonds.module';
import { SEARCH_BLOB_STORE } from './diamonds/diamonds.service';
import { searchEntities } from './entities';
import { EpcisModule } from './epcis/epcis.module';
import { LookupModule } from './lookup/lookup.module';
import { searchMigrations } from './migrations';
import { PassportModule } from './passport/passport.module';
import { ReadModelModule } from './read-model/read-model.module';

export { SearchConfig } from './config';
export { ReadModelRepository } from './read-model/read-model.repository';
export { SEARCH_CONSUMER } from './read-model/diamond-events.controller';
export { rebuildReadModel } from './read-model/rebuild';
export type { RebuildResult } from './read-model/rebuild';

export interface SearchDeps extends HostedServiceDeps {
  /** Defaults to the store named by the config (BLOB_STORE, BLOB_STORE_DIR, S3_*). */
  blobStore?: BlobStore;
}

/** What search's OpenAPI document says about the service (its address, its token audience). */
export function searchDocs(config: SearchConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: search API',
    description:
      'Read-only search of diamond records, their ancestors and files ({search_url}/v1), for non-participants. ' +
      'Eventually consistent with platform: a change is typically visible within a fraction of a second.',
    version: '1.35.0',
    tags: {
      search: 'Reading diamonds: by id, by search criteria, their history and files.',
      custody: "A diamond's custody log: entries, inclusion and consistency proofs, EPCIS 2.0 events.",
      passport: 'The public diamond passport behind a share link: page, record, custody and photos.',
    },
    // The audience is {search_url}/v1; the operations' paths carry the /v1 themselves.
    serverUrl: config.SEARCH_AUDIENCE.replace(/\/v1\/?$/, ''),
    security: config.openApiSecurity(config.SEARCH_AUDIENCE),
    transforms: [documentRateLimits],
  };
}

/** search: the read-only `/v1` API over a read model fed by platform.diamonds.v1 (the @dtp/service-host skeleton). */
export const searchService = defineService<SearchConfig, SearchDeps>({
  name: 'search',
  configClass: SearchConfig,
  docs: searchDocs,
  database: { entities: searchEntities, migrations: searchMigrations },
  // A consumer only: search publishes nothing (no outbox relay).
  events: () => ({ group: ConsumerGroups.SEARCH }),
  providers: (config, deps) => ({
    providers: [{ provide: SEARCH_BLOB_STORE, useFactory: () => deps?.blobStore ?? blobStoreFromConfig(config) }],
    exports: [SEARCH_BLOB_STORE],
  }),
  // Search writes nothing through its API: no Idempotency-Key.
  api: (config) => ({ tokens: config.tokenVerifierOptions(config.SEARCH_AUDIENCE), rateLimits: config, idempotency: false }),
  features: [ReadModelModule, DiamondsModule, LookupModule, CustodyModule, EpcisModule, PassportModule, CredentialModule],
});

/** Search's database options (migrations, search:rebuild, tests). */
export const searchDbOptions = (config: Pick<SearchConfig, 'DATABASE_URL' | 'DB_POOL_SIZE'>): DataSourceOptions => serviceDatabase(searchService.spec, config);
