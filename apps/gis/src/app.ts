import { BlobStore, blobStoreFromConfig } from '@dtp/blob-store';
import { documentIdempotencyKey } from '@dtp/database';
import { ConsumerGroups } from '@dtp/domain';
import { defineService, HostedServiceDeps } from '@dtp/service-host';
import { DocsOptions, documentRateLimits } from '@dtp/service-kit';
import { BLOB_STORE, GIS_CONFIG } from './common/tokens';
import { GisConfig } from './config';
import { DiamondsModule } from './diamonds/diamonds.module';
import { gisEntities } from './entities';
import { GradingModule } from './grading/grading.module';
import { gisMigrations } from './migrations';
import { ValidationModule } from './validation/validation.module';
import { VerifyModule } from './verify/verify.module';

export { GIS_CONFIG } from './common/tokens';

export interface GisDeps extends HostedServiceDeps {
  /** Where scan reports are read from; default: from config (BLOB_STORE=fs with BLOB_STORE_DIR, or s3 with S3_*). */
  blobStore?: BlobStore;
}

/** What gis's OpenAPI document says about the service (its address, its token audience). */
export function gisDocs(config: GisConfig): DocsOptions {
  return {
    title: 'Diamond Traceability Platform: gis API',
    description: 'Grading integration: verify, validate, poll, history and grading submission ({gis_url}).',
    version: '1.35.0',
    tags: { 'grading integration': 'Grading labs: verifying and validating polished diamonds against their graded measurements.' },
    serverUrl: config.PUBLIC_BASE_URL,
    security: config.openApiSecurity(config.GIS_AUDIENCE),
    transforms: [documentIdempotencyKey, documentRateLimits],
  };
}

/** gis: verify, validate, poll, history and grading submission (the @dtp/service-host skeleton). */
export const gisService = defineService<GisConfig, GisDeps>({
  name: 'gis',
  configClass: GisConfig,
  docs: gisDocs,
  database: { entities: gisEntities, migrations: gisMigrations },
  // A consumer of platform.diamonds.v1 and a publisher of gis.*.
  events: (config) => ({ group: ConsumerGroups.GIS, relay: { retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS } }),
  providers: (config, deps) => ({
    providers: [
      { provide: GIS_CONFIG, useExisting: GisConfig },
      { provide: BLOB_STORE, useFactory: () => deps?.blobStore ?? blobStoreFromConfig(config) },
    ],
    exports: [GIS_CONFIG, BLOB_STORE],
  }),
  api: (config) => ({ tokens: config.tokenVerifierOptions(config.GIS_AUDIENCE), rateLimits: config, idempotency: true }),
  features: [DiamondsModule, VerifyModule, ValidationModule, GradingModule],
});
