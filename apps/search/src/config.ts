import { IsInt, IsOptional, IsString, IsUrl, Min } from 'class-validator';
import { TokenCheckingConfig } from '@dtp/auth-guard';

const url = { require_tld: false, require_protocol: true };

export class SearchConfig extends TokenCheckingConfig {
  override PORT: number = 3003;

  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** The audience tokens must carry: {search_url}/v1. */
  @IsUrl(url)
  SEARCH_AUDIENCE: string = 'http://localhost:3003/v1';

  /**
   * The platform's public base address ({base_url}): the EPCIS export names diamonds and participants with HTTP URIs
   * under it (`{base}/id/diamond/{id}`, `{base}/id/participant/{id}`) and its extension namespace is `{base}/ns/epcis#`.
   */
  @IsUrl(url)
  PLATFORM_PUBLIC_URL: string = 'http://localhost:3002';

  /** This service's public base address ({search_url}), for passport links (QR codes); unset: the address each request came to. */
  @IsOptional()
  @IsUrl(url)
  SEARCH_PUBLIC_URL?: string;

  @IsString()
  BLOB_STORE_DIR: string = '.data/blobs';

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 20;
}
