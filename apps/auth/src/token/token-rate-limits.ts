import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { OAuthError } from './oauth-error';

export interface TokenLimits {
  /** Requests per minute per client address, whatever their outcome. */
  perIp: number;
  /** Tokens issued per minute per client_id. */
  issuedPerClient: number;
  /** Failed client authentications per minute per (client_id, client address) before that pair is locked. */
  failuresPerClientAddress: number;
}

/**
 * Token endpoint limits, each over a minute, in memory (each replica counts on its own):
 * - per client address: every request;
 * - per (client_id, client address): failed authentications only. Past the limit that client id is locked for
 *   that address until the minute is over. Keyed by the pair, so someone who knows a client_id cannot lock its
 *   owner out from elsewhere: only their own address is locked;
 * - per client_id: tokens issued, a separate and higher budget that only a holder of the secret can spend.
 */
export class TokenRateLimits {
  private readonly perIp: RateLimiterMemory;
  private readonly issued: RateLimiterMemory;
  private readonly failures: RateLimiterMemory;

  constructor(limits: TokenLimits) {
    this.perIp = new RateLimiterMemory({ keyPrefix: 'token_ip', points: limits.perIp, duration: 60 });
    this.issued = new RateLimiterMemory({ keyPrefix: 'token_issued', points: limits.issuedPerClient, duration: 60 });
    this.failures = new RateLimiterMemory({ keyPrefix: 'token_failures', points: limits.failuresPerClientAddress, duration: 60 });
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
  return new OAuthError('too_many_requests', `${what}; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
}

async function consume(limiter: RateLimiterMemory, key: string, what: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    throw tooMany(what, err.msBeforeNext);
  }
}
