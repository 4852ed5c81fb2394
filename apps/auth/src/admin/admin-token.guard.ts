import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError, UnauthenticatedError } from '@dtp/domain';
import { AUTH_CONFIG } from '../tokens';
import type { AuthConfig } from '../config';

/** RFC 6750 3: a 401 of a bearer-protected resource names its scheme and realm. */
const ADMIN_CHALLENGE = 'Bearer realm="dtp-admin"';

/** The window of ADMIN_TOKEN_FAILURE_LIMIT. */
export const ADMIN_FAILURE_WINDOW_SECONDS = 60;

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * The admin API answers only to `Authorization: Bearer <AUTH_ADMIN_TOKEN>`. Both sides are hashed to the same
 * length first, then compared with timingSafeEqual, so neither the content nor the length leaks through timing.
 *
 * Failures are counted per client address (`request.ip`, which believes X-Forwarded-For only from
 * TRUSTED_PROXIES): past ADMIN_TOKEN_FAILURE_LIMIT in a minute, that address gets 429 with `Retry-After` for
 * every admin request, the right token included, until the minute is over, so guessing stops at the limit and
 * a 429 tells nothing about the token tried.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;
  private readonly failures: RateLimiterMemory;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.expected = digest(config.AUTH_ADMIN_TOKEN);
    this.failures = new RateLimiterMemory({ keyPrefix: 'admin_failures', points: config.ADMIN_TOKEN_FAILURE_LIMIT, duration: ADMIN_FAILURE_WINDOW_SECONDS });
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const request = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; ip?: string }>();
    const address = request.ip ?? 'unknown';
    const seen = await this.failures.get(address);
    if (seen && seen.remainingPoints <= 0) throw lockedOut(seen.msBeforeNext);
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), this.expected)) {
      await this.failures.consume(address).catch((err: unknown) => {
        if (!(err instanceof RateLimiterRes)) throw err;
      });
      throw new UnauthenticatedError({ message: 'admin API: missing or wrong admin token (Authorization: Bearer <AUTH_ADMIN_TOKEN>)' }, ADMIN_CHALLENGE);
    }
    return true;
  }
}

function lockedOut(msBeforeNext: number): RateLimitedError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new RateLimitedError(
    { message: `admin API: too many wrong admin tokens from this address; retry in ${seconds} s`, reason: 'too_many_failures' },
    seconds,
  );
}
