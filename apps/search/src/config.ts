import { IsInt, IsOptional, IsString, IsUrl, Max, Min, Validate } from 'class-validator';
import { TokenCheckingConfig } from '@dtp/auth-guard';
import { CustodySigningKeyText } from '@dtp/domain';

const url = { require_tld: false, require_protocol: true };

export class SearchConfig extends TokenCheckingConfig {
  override PORT: number = 3003;

  /** HTTPS beside PORT, for mutual TLS (with TLS_CERT_FILE and TLS_KEY_FILE; `npm start -- --tls`: 3443). Unset: no HTTPS. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  SEARCH_TLS_PORT?: number;

  override get tlsPort(): number | undefined {
    return this.SEARCH_TLS_PORT;
  }

  override get tlsPortVariable(): string {
    return 'SEARCH_TLS_PORT';
  }

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

  /**
   * The passport's "look up by report number" form (POST /passport/lookup): look-ups per client address (request.ip,
   * X-Forwarded-For believed from TRUSTED_PROXIES only) per PASSPORT_LOOKUP_WINDOW_SECONDS; past it 429 with
   * Retry-After. Always on (it guards against guessing report numbers); 0 turns it off.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  PASSPORT_LOOKUP_PER_IP: number = 10;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86_400)
  PASSPORT_LOOKUP_WINDOW_SECONDS: number = 60;

  /**
   * The custody signing key (the same private Ed25519 JWK with kid as platform's CUSTODY_SIGNING_KEY), with which
   * search signs origin credentials (`/v1/diamonds/{id}/credential`). Unset: those routes answer 503.
   */
  @IsOptional()
  @Validate(CustodySigningKeyText)
  CUSTODY_SIGNING_KEY?: string;

  @IsString()
  BLOB_STORE_DIR: string = '.data/blobs';

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 20;
}
