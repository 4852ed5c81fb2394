import { IsInt, IsOptional, IsString, IsUrl, Min } from 'class-validator';
import { TokenCheckingConfig } from '@dtp/auth-guard';

const url = { require_tld: false, require_protocol: true };

export class GisConfig extends TokenCheckingConfig {
  override PORT: number = 3004;

  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** The audience tokens must carry: {gis_url}. Also the base of `status_url`. */
  @IsUrl(url)
  GIS_AUDIENCE: string = 'http://localhost:3004';

  @IsUrl(url)
  PUBLIC_BASE_URL: string = 'http://localhost:3004';

  @IsString()
  BLOB_STORE_DIR: string = '.data/blobs';

  /** How long a validation result stays usable (default 30 days). */
  @IsOptional()
  @IsInt()
  @Min(1)
  VALIDATION_EXPIRY_SECONDS: number = 30 * 24 * 3600;

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 10;
}
