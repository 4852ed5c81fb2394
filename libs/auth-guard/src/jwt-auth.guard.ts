import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC_KEY } from '@dtp/service-kit';
import type { Role } from '@dtp/domain';
import { Caller, ROLES_KEY } from './caller';
import { KeysUnavailableError, TokenError, TokenVerifier } from './token-verifier';

/**
 * Global guard: every route needs a valid access token for this service's audience unless marked @Public().
 * Accepts `Authorization: <token>` (the spec's form) and `Authorization: Bearer <token>`. Answers 401 (JSON
 * `{message, error: "invalid_token"}` and a `WWW-Authenticate: Bearer` challenge) for a missing or bad token,
 * 403 `{message}` when @Roles excludes the caller's role, 503 when the issuer's keys cannot be fetched.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined>; caller?: Caller }>();
    const token = extractToken(req.headers.authorization);
    try {
      req.caller = await this.verifier.verify(token);
    } catch (err) {
      if (err instanceof TokenError) throw unauthorized(err.message);
      if (err instanceof KeysUnavailableError) {
        const e = new ServiceUnavailableException({ message: 'tokens cannot be checked right now: the issuer\'s signing keys are unavailable; retry later' });
        (e as ServiceUnavailableException & { headers: Record<string, string> }).headers = { 'Retry-After': '5' };
        throw e;
      }
      throw err;
    }
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets);
    if (roles && !roles.includes(req.caller.role)) {
      throw new ForbiddenException({ message: `role "${req.caller.role}" may not perform this operation; allowed: ${roles.join(', ')}` });
    }
    return true;
  }
}

export function extractToken(header: string | undefined): string {
  if (!header || header.trim() === '') throw unauthorized('missing Authorization header');
  const value = header.trim();
  const token = /^bearer\s+/i.test(value) ? value.replace(/^bearer\s+/i, '') : value;
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(token)) throw unauthorized('Authorization header does not hold a JWT');
  return token;
}

function unauthorized(message: string): UnauthorizedException {
  const e = new UnauthorizedException({ message, error: 'invalid_token' });
  (e as UnauthorizedException & { headers: Record<string, string> }).headers = {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message.replace(/"/g, "'")}"`,
  };
  return e;
}
