import { IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { BaseServiceConfig } from '@dtp/service-kit';

const url = { require_tld: false, require_protocol: true };

export class AuthConfig extends BaseServiceConfig {
  override PORT: number = 3001;

  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** `iss` of every token: this service's public base address ({auth_url}). */
  @IsUrl(url)
  AUTH_ISSUER: string = 'http://localhost:3001';

  /** Bearer token for the admin API (onboarding). Required; `npm start` uses the documented dev value. */
  @IsString()
  @MinLength(12)
  AUTH_ADMIN_TOKEN!: string;

  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(24 * 3600)
  TOKEN_TTL_SECONDS: number = 3600;

  /** Audiences a token may be asked for, one per API. */
  @IsUrl(url)
  PLATFORM_AUDIENCE: string = 'http://localhost:3002';

  @IsUrl(url)
  SEARCH_AUDIENCE: string = 'http://localhost:3003/v1';

  @IsUrl(url)
  GIS_AUDIENCE: string = 'http://localhost:3004';

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 10;
}
