import { IsOptional, IsUrl } from 'class-validator';
import { BaseServiceConfig } from '@dtp/service-kit';

const url = { require_tld: false, require_protocol: true };

/** Env of a service that checks tokens: who issues them, where its keys are, and our own audience. */
export class TokenCheckingConfig extends BaseServiceConfig {
  @IsUrl(url)
  AUTH_ISSUER: string = 'http://localhost:3001';

  @IsOptional()
  @IsUrl(url)
  AUTH_JWKS_URL?: string;

  get jwksUrl(): string {
    return this.AUTH_JWKS_URL ?? `${this.AUTH_ISSUER.replace(/\/$/, '')}/.well-known/jwks.json`;
  }
}
