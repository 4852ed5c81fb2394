import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, ValidateBy } from 'class-validator';
import type { AudienceKind } from '@dtp/domain';
import { AT_REST_KEY_PATTERN, AtRestKeyRequiredWhenLive, atRestEncryptionState, AtRestPreviousKeys, BaseServiceConfig } from '@dtp/service-kit';
import { TrustedProxies } from '@dtp/service-kit';

const url = { require_tld: false, require_protocol: true };

/** The admin token `npm start` uses and the docs show: refused in production and live. */
export const DEV_ADMIN_TOKEN = 'dev-admin-token';
export const LIVE_ADMIN_TOKEN_MIN_LENGTH = 32;

/**
 * Every admin token the repository has ever published (docs, README, manifests, scripts, the benchmarks): anyone can
 * read them, so production and live refuse them whatever their length. `published-admin-tokens.spec.ts` scans the
 * repository and fails when a new example is written that this list does not hold.
 */
export const PUBLISHED_ADMIN_TOKENS: readonly string[] = [
  DEV_ADMIN_TOKEN,
  // The kind overlay's value until its secrets were generated at kind-up time (deploy/kind-up.sh).
  'kind-dev-admin-token-0123456789abcdef',
  'bench-admin-token-0123456789abcdefghijklmnop',
  'placeholder-admin-token-0123456789',
  'deploy-checks-admin-token-0123456789',
  'a-test-admin-token-of-enough-length-0123',
];

/** What production and live require of AUTH_ADMIN_TOKEN: 32 characters or more, and none ever published. */
export function isStrongAdminToken(token: string | undefined): boolean {
  return typeof token === 'string' && !PUBLISHED_ADMIN_TOKENS.includes(token) && token.length >= LIVE_ADMIN_TOKEN_MIN_LENGTH;
}

export class AuthConfig extends BaseServiceConfig {
  override PORT: number = 3001;

  /** HTTPS beside PORT, for mutual TLS (with TLS_CERT_FILE and TLS_KEY_FILE; `npm start -- --tls`: 3441). Unset: no HTTPS. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  AUTH_TLS_PORT?: number;

  override get tlsPort(): number | undefined {
    return this.AUTH_TLS_PORT;
  }

  override get tlsPortVariable(): string {
    return 'AUTH_TLS_PORT';
  }

  @IsUrl({ ...url, protocols: ['postgres', 'postgresql'] })
  DATABASE_URL!: string;

  /** `iss` of every token: this service's public base address ({auth_url}). */
  @IsUrl(url)
  AUTH_ISSUER: string = 'http://localhost:3001';

  /**
   * Optional: where clients reach this service over mutual TLS when that is not AUTH_ISSUER (its HTTPS port, or an
   * ingress host that asks for client certificates): advertised as `mtls_endpoint_aliases` (RFC 8705 5).
   */
  @IsOptional()
  @IsUrl(url)
  AUTH_MTLS_URL?: string;

  /**
   * Bearer token for the admin API (onboarding). Required; `npm start` uses the documented dev value. In
   * production or live (see `live`) it must be at least 32 characters and not the dev value.
   */
  @IsString()
  @MinLength(12)
  AUTH_ADMIN_TOKEN!: string;

  /** `production` switches on the live rules (the images set it). */
  @IsOptional()
  @IsString()
  NODE_ENV?: string;

  /** `live` switches on the live rules too (the live environment's overlay). */
  @IsOptional()
  @IsString()
  DTP_ENV?: string;

  /** True in production or in the live environment: rules for secrets apply. */
  get live(): boolean {
    return this.NODE_ENV === 'production' || this.DTP_ENV === 'live';
  }

  /**
   * Validation only, for the admin token's live rule. A getter rather than a rule on AUTH_ADMIN_TOKEN itself so
   * that the start-up error describes the token (its length, or that it is the dev value) and never prints it.
   */
  @ValidateBy({
    name: 'liveAdminToken',
    validator: {
      validate: (_value: unknown, args) => {
        const config = args?.object as AuthConfig | undefined;
        return !config?.live || isStrongAdminToken(config.AUTH_ADMIN_TOKEN);
      },
      defaultMessage: () =>
        `AUTH_ADMIN_TOKEN must be at least ${LIVE_ADMIN_TOKEN_MIN_LENGTH} random characters and not the dev value ${DEV_ADMIN_TOKEN} nor any example published in the repository when NODE_ENV=production or DTP_ENV=live`,
    },
  })
  get AUTH_ADMIN_TOKEN_STRENGTH(): string {
    const token = this.AUTH_ADMIN_TOKEN ?? '';
    if (token === DEV_ADMIN_TOKEN) return `the dev value ${DEV_ADMIN_TOKEN}`;
    if (PUBLISHED_ADMIN_TOKENS.includes(token)) return 'an example published in the repository';
    return `${token.length} characters`;
  }

  /**
   * Optional: the port of the admin listener. Set, `/admin/*` is served only there (with `/health/*`) and the public
   * PORT answers it 404, so the Service and Ingress that expose PORT never reach the admin API. Unset (`npm start`,
   * the tests): the admin API stays on PORT. 0 takes any free port (tests).
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  ADMIN_PORT?: number;

  /** Wrong or missing admin tokens per minute per client address; past it, 429 for that address until the minute ends. */
  @IsOptional()
  @IsInt()
  @Min(1)
  ADMIN_TOKEN_FAILURE_LIMIT: number = 10;

  /** Lifetime of access tokens (`expires_in`). A retired signing key stays in the JWKS this long. */
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

  /** Tokens issued per minute per client_id (429 past it). Failed attempts do not count here. */
  @IsOptional()
  @IsInt()
  @Min(1)
  TOKEN_RATE_LIMIT_PER_CLIENT: number = 300;

  /** Token requests per minute per client address, whatever their outcome (429 past it). */
  @IsOptional()
  @IsInt()
  @Min(1)
  TOKEN_RATE_LIMIT_PER_IP: number = 600;

  /**
   * Failed client authentications per minute per (client_id, client address): past it, that client id is locked
   * for that address (429) until the minute is over. Other addresses, the legitimate client's included, are not.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  TOKEN_FAILURE_LIMIT: number = 10;

  /**
   * How long a client secret that verified is remembered (keyed by an HMAC, in memory), so that a repeat client's
   * token requests skip scrypt. 0 turns the cache off. Revocations take effect at once regardless.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600)
  TOKEN_SECRET_CACHE_SECONDS: number = 300;

  /** scrypt cost of new client secret hashes: N = 2^SCRYPT_LOG_N (r = 8, p = 1). Stored per hash. */
  @IsOptional()
  @IsInt()
  @Min(14)
  @Max(17)
  SCRYPT_LOG_N: number = 14;

  /** How long the signing key in use is cached before the database is asked again (picks up rotations). */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600)
  SIGNING_KEY_CACHE_SECONDS: number = 10;

  /**
   * Optional: rotate the signing key when the active one is this many days old (checked at start and then at
   * least hourly; replicas rotate once between them). Unset (the default): no scheduled rotation, rotate with
   * `auth:cli rotate-keys` (e.g. from a CronJob). See docs/auth.md "Signing keys and rotation".
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(365)
  SIGNING_KEY_ROTATION_DAYS?: number;

  /**
   * 32 bytes (base64 or base64url, 43-44 characters) that encrypt the private signing keys at rest (AES-256-GCM).
   * Required in production and live, unless SIGNING_KEYS_UNENCRYPTED=true says, on purpose, that the keys may be
   * stored as plain JWK text (a warning is logged at every start then). Optional elsewhere (`npm start`, tests).
   */
  @IsOptional()
  @IsString()
  @Matches(AT_REST_KEY_PATTERN, { message: 'SIGNING_KEY_ENCRYPTION_KEY must be 32 bytes in base64' })
  SIGNING_KEY_ENCRYPTION_KEY?: string;

  /**
   * Only while changing SIGNING_KEY_ENCRYPTION_KEY: more keys a private key may be sealed with, comma-separated
   * (first the new key, then the old one). They open, and the active key is resealed with the current one at start
   * (docs/auth.md "Changing the encryption key").
   */
  @AtRestPreviousKeys('SIGNING_KEY_ENCRYPTION_KEY')
  SIGNING_KEY_ENCRYPTION_KEY_PREVIOUS?: string;

  /** `true`: production or live may store the private signing keys unencrypted (an explicit, logged choice). */
  @IsOptional()
  @IsIn(['true', 'false'])
  SIGNING_KEYS_UNENCRYPTED: 'true' | 'false' = 'false';

  /** Validation only: in production and live, the keys are encrypted at rest or the opt-out says they need not be. */
  @AtRestKeyRequiredWhenLive('SIGNING_KEY_ENCRYPTION_KEY', 'SIGNING_KEYS_UNENCRYPTED', 'the private signing keys')
  get SIGNING_KEY_ENCRYPTION(): string {
    return atRestEncryptionState(this.SIGNING_KEY_ENCRYPTION_KEY, this.SIGNING_KEYS_UNENCRYPTED);
  }

  @IsOptional()
  @IsInt()
  @Min(1)
  DB_POOL_SIZE: number = 10;

  /** TRUSTED_PROXIES, parsed. */
  trustedProxies(): TrustedProxies {
    return TrustedProxies.parse(this.TRUSTED_PROXIES);
  }

  /** The audience address of each API. */
  audiences(): Record<AudienceKind, string> {
    return { platform: this.PLATFORM_AUDIENCE, search: this.SEARCH_AUDIENCE, gis: this.GIS_AUDIENCE };
  }
}
