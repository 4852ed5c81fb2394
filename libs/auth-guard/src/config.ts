import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { BaseServiceConfig } from '@dtp/service-kit';
import { MAX_TOKEN_TTL_SECONDS, TokenVerifierOptions } from './token-verifier';

const url = { require_tld: false, require_protocol: true };

/** Env of a service that checks tokens: who issues them, where its keys are, and our own audience. */
export class TokenCheckingConfig extends BaseServiceConfig {
  @IsUrl(url)
  AUTH_ISSUER: string = 'http://localhost:3001';

  @IsOptional()
  @IsUrl(url)
  AUTH_JWKS_URL?: string;

  /**
   * The auth service's token lifetime (the same variable and default as auth's): tokens whose `exp` lies further
   * than this (plus a minute of skew) from their `iat` or from now are refused.
   */
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(MAX_TOKEN_TTL_SECONDS)
  TOKEN_TTL_SECONDS: number = 3600;

  /**
   * Per-client rate limits of the API (libs/service-kit rate-limit.ts): requests per RATE_LIMIT_WINDOW_SECONDS per
   * authenticated client id, and per client address for requests without a token. 0, the default: off.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_PER_CLIENT: number = 0;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_PER_IP: number = 0;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3600)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  get jwksUrl(): string {
    return this.AUTH_JWKS_URL ?? `${this.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`;
  }

  /** The OpenAPI security of a service that takes tokens for `audience` (docs: the token URL and the audience). */
  openApiSecurity(audience: string): { tokenUrl: string; audience: string } {
    return { tokenUrl: `${this.AUTH_ISSUER.replace(/\/$/, '')}/oauth/token`, audience };
  }

  /** Everything `AuthGuardModule.forRoot` needs, for this service's own audience. */
  tokenVerifierOptions(audience: string): TokenVerifierOptions {
    return { issuer: this.AUTH_ISSUER, audience, jwksUrl: this.jwksUrl, tokenTtlSeconds: this.TOKEN_TTL_SECONDS };
  }
}
