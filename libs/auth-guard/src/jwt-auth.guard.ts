import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, AuthModuleOptions } from '@nestjs/passport';
import { ForbiddenError, UnauthenticatedError, UnavailableError } from '@dtp/domain';
import { IS_PUBLIC_KEY } from '@dtp/service-kit';
import type { Role } from '@dtp/domain';
import { Caller, ROLES_KEY } from './caller';
import { readAuthorization, TokenRequest } from './jwt.strategy';
import { KeysUnavailableError, TokenError, TokenVerifier } from './token-verifier';

/** The request the guard works on: Fastify's, with the caller once the token is verified. */
interface GuardedRequest extends TokenRequest {
  id?: string;
  caller?: Caller;
  log?: { error(obj: object, msg: string): void };
}

/** Seconds a client is asked to wait when the issuer's keys cannot be fetched. */
const KEYS_RETRY_AFTER_SECONDS = 5;
const KEYS_UNAVAILABLE_MESSAGE = "tokens cannot be checked right now: the issuer's signing keys are unavailable; retry later";

/**
 * Global guard: every HTTP route needs a valid access token for this service's audience unless marked
 * @Public(). The token goes through this app's passport-jwt strategy (JwtStrategy, asked for by its own name:
 * AuthModuleOptions.defaultStrategy) and the caller lands on `req.caller`. Accepts `Authorization: <token>` (the
 * spec's form) and `Authorization: Bearer <token>`. Answers 401 (JSON `{message, error: "invalid_token"}` and a
 * `WWW-Authenticate: Bearer` challenge) for a missing or bad token, 403 `{message}` when @Roles excludes the
 * caller's role, 503 (`Retry-After: 5`) when the issuer's keys cannot be fetched. Other execution contexts
 * (microservice message and event handlers) are not HTTP requests and carry no token: they pass.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard() {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
    @Inject(AuthModuleOptions) options: AuthModuleOptions,
  ) {
    super(options);
  }

  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const req = this.getRequest(ctx);
    // A token verified before (the verified-token cache, the deny-list still consulted) skips passport's
    // per-request machinery too: about 10 us of CPU per request, a tenth of a cached search read (bench search).
    const cached = this.cachedCaller(req);
    if (cached) req.caller = cached;
    else await super.canActivate(ctx);
    const caller = req.caller!;
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets);
    if (roles && !roles.includes(caller.role)) {
      throw new ForbiddenError(`role "${caller.role}" may not perform this operation; allowed: ${roles.join(', ')}`);
    }
    return true;
  }

  private cachedCaller(req: GuardedRequest): Caller | undefined {
    const read = readAuthorization(req.headers.authorization);
    if ('refusal' in read) return undefined; // passport and handleRequest give the refusal
    try {
      return this.verifier.cached(read.token);
    } catch (err) {
      if (err instanceof TokenError) throw invalidToken(err.message);
      throw err;
    }
  }

  override getRequest(ctx: ExecutionContext): GuardedRequest {
    return ctx.switchToHttp().getRequest<GuardedRequest>();
  }

  /**
   * passport's outcome: the Caller, or the refusal as a domain error. `err` is what `validate` threw (a
   * TokenError, or a bug: 500), `info` why passport-jwt failed the token: no token in the header, the key
   * provider's TokenError or KeysUnavailableError, or the JWT library's refusal, which the verifier restates
   * after a look at the key set. That look is asynchronous: AuthGuard awaits what this returns, so the refusal
   * is then a rejected promise.
   */
  override handleRequest<TUser = Caller>(err: unknown, user: unknown, info: unknown, ctx: ExecutionContext): TUser {
    if (!err && user) return user as TUser;
    if (err && !(err instanceof TokenError)) throw err;
    const req = this.getRequest(ctx);
    const read = readAuthorization(req.headers.authorization);
    if ('refusal' in read) throw invalidToken(read.refusal);
    const problem = err ?? info;
    if (problem instanceof TokenError) throw invalidToken(problem.message);
    if (problem instanceof KeysUnavailableError) throw keysUnavailable(req, problem);
    return this.verifier.explain(read.token, problem).then((refusal) => {
      throw refusal instanceof KeysUnavailableError ? keysUnavailable(req, refusal) : invalidToken(refusal.message);
    }) as TUser;
  }
}

/** 503 with `Retry-After` and the body every 503 of an unreachable dependency has: the message and the request id. */
function keysUnavailable(req: GuardedRequest, cause: KeysUnavailableError): UnavailableError {
  req.log?.error({ err: cause }, 'tokens cannot be checked: the signing keys are unavailable');
  return new UnavailableError(KEYS_UNAVAILABLE_MESSAGE, KEYS_RETRY_AFTER_SECONDS, { cause }, { request_id: req.id });
}

/** 401 invalid_token: `{message, error}` and the RFC 6750 challenge (no quotes inside the description). */
export function invalidToken(message: string): UnauthenticatedError {
  return new UnauthenticatedError({ message, error: 'invalid_token' }, `Bearer error="invalid_token", error_description="${message.replace(/"/g, "'")}"`);
}

/** The token of an `Authorization` header value (both forms); UnauthenticatedError (401) when there is none. */
export function extractToken(header: string | undefined): string {
  const read = readAuthorization(header);
  if ('refusal' in read) throw invalidToken(read.refusal);
  return read.token;
}
