import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { OAuthError } from './oauth-error';

/**
 * Token endpoint limits, per remote address and per client_id, each over a sliding minute (in memory: each
 * replica counts on its own, so the effective limit is per replica).
 */
export class TokenRateLimits {
  private readonly perIp: RateLimiterMemory;
  private readonly perClient: RateLimiterMemory;

  constructor(perIpPerMinute: number, perClientPerMinute: number) {
    this.perIp = new RateLimiterMemory({ keyPrefix: 'token_ip', points: perIpPerMinute, duration: 60 });
    this.perClient = new RateLimiterMemory({ keyPrefix: 'token_client', points: perClientPerMinute, duration: 60 });
  }

  async consumeIp(ip: string): Promise<void> {
    await consume(this.perIp, ip, 'this address');
  }

  async consumeClient(clientId: string): Promise<void> {
    await consume(this.perClient, clientId, 'this client');
  }
}

async function consume(limiter: RateLimiterMemory, key: string, who: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw new OAuthError('too_many_requests', `too many token requests from ${who}; retry in ${seconds} s`, {
      'Retry-After': String(seconds),
    });
  }
}
