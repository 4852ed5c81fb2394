import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError } from '@dtp/domain';
import { AUTH_CONFIG } from '../tokens';
import type { AuthConfig } from '../config';

/** RFC 6750 3: a 401 of a bearer-protected resource names its scheme and realm. */
const ADMIN_CHALLENGE = 'Bearer realm="dtp-admin"';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * The admin API answers only to `Authorization: Bearer <AUTH_ADMIN_TOKEN>`. Both sides are hashed to the same
 * length first, then compared with timingSafeEqual, so neither the content nor the length leaks through timing.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(AUTH_CONFIG) config: AuthConfig) {
    this.expected = digest(config.AUTH_ADMIN_TOKEN);
  }

  canActivate(ctx: ExecutionContext): boolean {
    const header = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers.authorization ?? '';
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]), this.expected)) {
      throw new UnauthenticatedError({ message: 'admin API: missing or wrong admin token (Authorization: Bearer <AUTH_ADMIN_TOKEN>)' }, ADMIN_CHALLENGE);
    }
    return true;
  }
}
