import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';
import { OAuthError } from './oauth-error';

/**
 * Token endpoint limits, each over a minute, in memory (each replica counts on its own):
 * - per client address: every request;
 * - per (client_id, client address): failed authentications only. Past the limit that client id is locked for
 *   that address until the minute is over. Keyed by the pair, so someone who knows a client_id cannot lock its
 *   owner out from elsewhere: only their own address is locked;
 * - per client_id: tokens issued, a separate and higher budget that only a holder of the secret can spend.
 * The limits are TOKEN_RATE_LIMIT_PER_IP, TOKEN_FAILURE_LIMIT and TOKEN_RATE_LIMIT_PER_CLIENT.
 */
@Injectable()
export class TokenRateLimits {
  private readonly perIp: RateLimiterMemory;
  private readonly issued: RateLimiterMemory;
  private readonly failures: RateLimiterMemory;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.perIp = new RateLimiterMemory({ keyPrefix: 'token_ip', points: config.TOKEN_RATE_LIMIT_PER_IP, duration: 60 });
    this.issued = new RateLimiterMemory({ keyPrefix: 'token_issued', points: config.TOKEN_RATE_LIMIT_PER_CLIENT, duration: 60 });
    this.failures = new RateLimiterMemory({ keyPrefix: 'token_failures', points: config.TOKEN_FAILURE_LIMIT, duration: 60 });
  }

  async consumeIp(address: string): Promise<void> {
    await consume(this.perIp, address, 'too many token requests from this address');
  }

  /** Throws 429 when this client id has failed too often from this address in the current minute. */
  async checkNotLocked(clientId: string, address: string): Promise<void> {
    const res = await this.failures.get(failureKey(clientId, address));
    if (res && res.remainingPoints <= 0) throw tooMany('too many failed authentications for this client from this address', res.msBeforeNext);
  }

  /** Counts one failed authentication of this client id from this address. */
  async recordFailure(clientId: string, address: string): Promise<void> {
    await this.failures.consume(failureKey(clientId, address)).catch((err: unknown) => {
      if (!(err instanceof RateLimiterRes)) throw err;
    });
  }

  /** Counts one token issued to this client id; 429 past the limit. */
  async consumeIssued(clientId: string): Promise<void> {
    await consume(this.issued, clientId, 'too many tokens issued to this client');
  }
}

const failureKey = (clientId: string, address: string) => `${address} ${clientId}`;

function tooMany(what: string, msBeforeNext: number): OAuthError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new OAuthError('too_many_requests', `${what}; retry in ${seconds} s`, { retryAfterSeconds: seconds });
}

async function consume(limiter: RateLimiterMemory, key: string, what: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    throw tooMany(what, err.msBeforeNext);
  }
}
