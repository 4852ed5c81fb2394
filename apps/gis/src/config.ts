import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { TokenCheckingConfig } from '@dtp/auth-guard';

const url = { require_tld: false, require_protocol: true };

export class GisConfig extends TokenCheckingConfig {
  override PORT: number = 3004;

  /** HTTPS beside PORT, for mutual TLS (with TLS_CERT_FILE and TLS_KEY_FILE; `npm start -- --tls`: 3444). Unset: no HTTPS. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  GIS_TLS_PORT?: number;

  override get tlsPort(): number | undefined {
    return this.GIS_TLS_PORT;
  }

  override get tlsPortVariable(): string {
    return 'GIS_TLS_PORT';
  }

  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** The audience tokens must carry: {gis_url}. */
  @IsUrl(url)
  GIS_AUDIENCE: string = 'http://localhost:3004';

  /** Base of the absolute `status_url` answered by validate-json. */
  @IsUrl(url)
  PUBLIC_BASE_URL: string = 'http://localhost:3004';

  @IsString()
  BLOB_STORE_DIR: string = '.data/blobs';

  /** Scan reports larger than this are `scan_report_not_supported` (default 5 MiB). */
  @IsOptional()
  @IsInt()
  @Min(1024)
  SCAN_REPORT_MAX_BYTES: number = 5 * 1024 * 1024;

  /** How long a validation result stays usable (default 30 days): `expired` in history, 412 on grading. */
  @IsOptional()
  @IsInt()
  @Min(1)
  VALIDATION_EXPIRY_SECONDS: number = 30 * 24 * 3600;

  /** `false` runs this replica without the validation worker (API only); another replica answers jobs. */
  @IsOptional()
  @IsIn(['true', 'false'])
  VALIDATION_WORKER_ENABLED: string = 'true';

  /** A claimed job whose worker has not answered within this time is reclaimed by any worker. */
  @IsOptional()
  @IsInt()
  @Min(1)
  VALIDATION_LEASE_SECONDS: number = 60;

  /** Fallback poll of the job table (NOTIFY wakes the worker at once; the poll catches expired leases). */
  @IsOptional()
  @IsInt()
  @Min(10)
  VALIDATION_POLL_MS: number = 1000;

  /** Jobs one worker processes at the same time. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  VALIDATION_WORKER_CONCURRENCY: number = 16;

  /** Claims of one job before it is answered `Unverifiable` with a verification_error (crash loops). */
  @IsOptional()
  @IsInt()
  @Min(1)
  VALIDATION_MAX_ATTEMPTS: number = 3;

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 10;

  get validationWorkerEnabled(): boolean {
    return this.VALIDATION_WORKER_ENABLED !== 'false';
  }
}
