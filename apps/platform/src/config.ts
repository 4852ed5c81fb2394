import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, Max, Min, Validate } from 'class-validator';
import { TokenCheckingConfig } from '@dtp/auth-guard';
import { AT_REST_KEY_PATTERN, AtRestKeyRequiredWhenLive, atRestEncryptionState, AtRestPreviousKeys } from '@dtp/service-kit';
import { DEFAULT_FILES_PER_DIAMOND, DEFAULT_STORAGE_QUOTA_BYTES } from '@dtp/domain';
import { CustodySigningKeyText } from './custody/custody-key-config';

const url = { require_tld: false, require_protocol: true };

export class PlatformConfig extends TokenCheckingConfig {
  override PORT: number = 3002;

  /** HTTPS beside PORT, for mutual TLS (with TLS_CERT_FILE and TLS_KEY_FILE; `npm start -- --tls`: 3442). Unset: no HTTPS. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  PLATFORM_TLS_PORT?: number;

  override get tlsPort(): number | undefined {
    return this.PLATFORM_TLS_PORT;
  }

  override get tlsPortVariable(): string {
    return 'PLATFORM_TLS_PORT';
  }

  /** This service's own database (postgres://user:pass@host:port/dtp_platform). */
  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** The audience tokens must carry to call this API: the platform's public base address. */
  @IsUrl(url)
  PLATFORM_AUDIENCE: string = 'http://localhost:3002';

  /** Public base address, used in pagination links and shipment `sender`. */
  @IsUrl(url)
  PUBLIC_BASE_URL: string = 'http://localhost:3002';

  /** Search's public base address: passport share links are `{SEARCH_PUBLIC_URL}/passport/{share_id}`. */
  @IsUrl(url)
  SEARCH_PUBLIC_URL: string = 'http://localhost:3003';

  /** Where the content-addressed blob store keeps file bytes (filesystem backend). */
  @IsString()
  BLOB_STORE_DIR: string = '.data/blobs';

  @IsOptional()
  @IsInt()
  @Min(1)
  FILE_SIZE_LIMIT_BYTES: number = 50 * 1024 * 1024;

  /** Files one diamond may have (all kinds together); one more answers 409 `too_many_files`. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  FILES_PER_DIAMOND_MAX: number = DEFAULT_FILES_PER_DIAMOND;

  /**
   * Bytes of files one participant may attach in all (default 20 GiB): past it, 409 `storage_quota_exceeded`.
   * Counts every file attached to a diamond it holds (re-attaching bytes the diamond already has does not count).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  STORAGE_QUOTA_BYTES: number = DEFAULT_STORAGE_QUOTA_BYTES;

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 20;

  /** Custody log (docs/platform.md "Custody log"): milliseconds between checkpoints (at most 10 s, DESIGN.md). */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(10_000)
  CUSTODY_CHECKPOINT_INTERVAL_MS: number = 2000;

  /** The log's name in every checkpoint; default PUBLIC_BASE_URL. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  CUSTODY_LOG_ID?: string;

  /** A private Ed25519 JWK (JSON, with kid) that signs checkpoints; unset: a key generated once, kept in the database. */
  @IsOptional()
  @Validate(CustodySigningKeyText)
  CUSTODY_SIGNING_KEY?: string;

  /** `production` switches on the webhook SSRF rules (whatever WEBHOOK_ALLOW_PRIVATE_URLS says). */
  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  /** `live` or `sandbox` switches on the webhook SSRF rules (whatever WEBHOOK_ALLOW_PRIVATE_URLS says). */
  @IsOptional()
  @IsString()
  DTP_ENV?: string;

  /**
   * Webhooks (docs/webhooks.md): `true` lets a webhook use http and loopback/private addresses (npm start and the
   * tests set it); ignored in live/sandbox and under NODE_ENV=production, where the SSRF rules always hold.
   */
  @IsOptional()
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_PRIVATE_URLS: string = 'false';

  /** Delays before the 2nd, 3rd, ... attempt of a delivery, in ms (the last one repeats), comma separated. */
  @IsOptional()
  @Matches(/^\d{1,10}(,\d{1,10}){0,31}$/, { message: 'WEBHOOK_RETRY_SCHEDULE_MS must be 1 to 32 comma-separated millisecond counts' })
  WEBHOOK_RETRY_SCHEDULE_MS: string = '5000,60000,300000,1800000,7200000,18000000,36000000';

  /** A delivery still failing this long after its first attempt becomes `failed` (default 72 h). */
  @IsOptional()
  @IsInt()
  @Min(0)
  WEBHOOK_RETRY_WINDOW_MS: number = 72 * 3600 * 1000;

  /** A receiver must answer 2xx within this many ms (default 10 s). */
  @IsOptional()
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /** The delivery worker's fallback poll (it is also woken after each commit), in ms. */
  @IsOptional()
  @IsInt()
  @Min(5)
  @Max(60_000)
  WEBHOOK_POLL_MS: number = 1000;

  /** Webhooks one worker delivers to at once (each one delivery at a time). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(256)
  WEBHOOK_CONCURRENCY: number = 32;

  /** `false`: this instance delivers nothing (another replica does). */
  @IsOptional()
  @IsIn(['true', 'false'])
  WEBHOOK_WORKER_ENABLED: string = 'true';

  /**
   * 32 bytes (base64 or base64url, 43-44 characters) that encrypt the webhooks' signing secrets at rest
   * (AES-256-GCM, docs/webhooks.md "Secrets at rest"). Required in production and live, unless
   * WEBHOOK_SECRETS_UNENCRYPTED=true says, on purpose, that they may be stored as plain text (a warning is logged at
   * every start then). Optional elsewhere (`npm start`, tests).
   */
  @IsOptional()
  @IsString()
  @Matches(AT_REST_KEY_PATTERN, { message: 'WEBHOOK_SECRET_ENCRYPTION_KEY must be 32 bytes in base64' })
  WEBHOOK_SECRET_ENCRYPTION_KEY?: string;

  /**
   * Only while changing WEBHOOK_SECRET_ENCRYPTION_KEY: more keys secrets may be sealed with, comma-separated (first
   * the new key, then the old one). They open, and each replica reseals them with the current key at start
   * (docs/webhooks.md "Changing the key").
   */
  @AtRestPreviousKeys('WEBHOOK_SECRET_ENCRYPTION_KEY')
  WEBHOOK_SECRET_ENCRYPTION_KEY_PREVIOUS?: string;

  /** `true`: production or live may store the webhooks' signing secrets unencrypted (an explicit, logged choice). */
  @IsOptional()
  @IsIn(['true', 'false'])
  WEBHOOK_SECRETS_UNENCRYPTED: 'true' | 'false' = 'false';

  /** Validation only: in production and live, webhook secrets are encrypted at rest or the opt-out says they need not be. */
  @AtRestKeyRequiredWhenLive('WEBHOOK_SECRET_ENCRYPTION_KEY', 'WEBHOOK_SECRETS_UNENCRYPTED', 'the webhook signing secrets')
  get WEBHOOK_SECRET_ENCRYPTION(): string {
    return atRestEncryptionState(this.WEBHOOK_SECRET_ENCRYPTION_KEY, this.WEBHOOK_SECRETS_UNENCRYPTED);
  }

  /** Days the event feed (and the delivery log) keeps an event. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS: number = 30;

  /** True in production (the images) or in the live environment: secrets must be protected. */
  get live(): boolean {
    return this.NODE_ENV === 'production' || this.DTP_ENV === 'live';
  }

  /** True where http and private addresses are allowed as webhook targets. */
  get webhookAllowPrivate(): boolean {
    if (this.NODE_ENV === 'production' || this.DTP_ENV === 'live' || this.DTP_ENV === 'sandbox') return false;
    return this.WEBHOOK_ALLOW_PRIVATE_URLS === 'true';
  }

  get webhookRetrySchedule(): number[] {
    return this.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
  }

  get custodyLogId(): string {
    return this.CUSTODY_LOG_ID ?? this.PUBLIC_BASE_URL;
  }
}
