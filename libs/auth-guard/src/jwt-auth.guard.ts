import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, AuthModuleOptions } from '@nestjs/passport';
import { ForbiddenError, UnauthenticatedError, UnavailableError } from '@dtp/domain';
import { ClientCertificate, IS_PUBLIC_KEY, UnreadableClientCertificate } from '@dtp/service-kit';
import type { Role } from '@dtp/domain';
import { Caller, ROLES_KEY } from './caller';
import { readAuthorization, TokenRequest } from './jwt.strategy';
import { KeysUnavailableError, TokenError, TokenVerifier } from './token-verifier';

/** The request the guard works on: Fastify's, with the caller once the token is verified. */
interface GuardedRequest extends TokenRequest {
  id?: string;
  caller?: Caller;
  log?: { error(obj: object, msg: string): void };
  /** Set by the kit on requests made with a client certificate (service-kit client-certificate.ts). */
  clientCertificate?: ClientCertificate | UnreadableClientCertificate;
}

/** A legacy call's client id (rate limits, logs): the certificate's thumbprint, not a credential of auth's. */
export const MTLS_CLIENT_PREFIX = 'mtls:';
export const BOUND_TOKEN_MESSAGE = 'token is bound to a client certificate (cnf x5t#S256): make the request over mutual TLS with that certificate';

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
  /** Each route's policy, by handler, then by class (a handler inherited by two controllers has two). */
  private readonly routes = new WeakMap<object, WeakMap<object, RoutePolicy>>();

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
    @Inject(AuthModuleOptions) options: AuthModuleOptions,
  ) {
    super(options);
  }

  override async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const route = this.routeOf(ctx);
    if (route.isPublic) return true;
    const req = this.getRequest(ctx);
    const certificate = req.clientCertificate;
    // Legacy mode: a request over mutual TLS with no token acts as the certificate's participant (docs/auth.md).
    if (certificate !== undefined && !hasAuthorization(req)) {
      req.caller = this.legacyCaller(certificate);
      return checkRole(req.caller, route);
    }
    // A token verified before (the verified-token cache, the deny-list still consulted) skips passport's
    // per-request machinery too: about 10 us of CPU per request, a tenth of a cached search read (bench search).
    const cached = this.cachedCaller(req);
    if (cached) req.caller = cached;
    else await super.canActivate(ctx);
    const caller = req.caller!;
    // RFC 8705 3: a certificate-bound token only on a request made with that certificate.
    if (caller.certificateThumbprint !== undefined) {
      const presented = certificate !== undefined && 'x5tS256' in certificate ? certificate.x5tS256 : undefined;
      if (presented !== caller.certificateThumbprint) throw invalidToken(BOUND_TOKEN_MESSAGE);
    }
    return checkRole(caller, route);
  }

  /**
   * The route's @Public() and @Roles(), read once per handler and class: a route's metadata is set by its
   * decorators when the class is defined and never changes, and reading it through the Reflector on every request
   * was about 0.6 % of a registration's CPU (bench platform, 2026-12-06).
   */
  private routeOf(ctx: ExecutionContext): RoutePolicy {
    const handler = ctx.getHandler();
    const cls = ctx.getClass();
    let byClass = this.routes.get(handler);
    if (byClass === undefined) this.routes.set(handler, (byClass = new WeakMap()));
    let route = byClass.get(cls);
    if (route === undefined) {
      const targets = [handler, cls];
      route = {
        isPublic: Boolean(this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets)),
        roles: this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets),
      };
      byClass.set(cls, route);
    }
    return route;
  }

  /**
   * The caller of a legacy mTLS call: the participant a registered, unexpired certificate belongs to, with its role.
   * Anything else is 401 invalid_token with the reason (RFC 6750), never a fall-through to "no token".
   */
  private legacyCaller(certificate: ClientCertificate | UnreadableClientCertificate): Caller {
    if ('problem' in certificate) throw invalidToken(certificate.problem);
    const registered = this.verifier.certificates.find(certificate.x5tS256);
    if (!registered) {
      throw invalidToken('the client certificate is not registered for a legacy (mutual TLS) integration; send an access token');
    }
    if (registered.notAfter <= Date.now()) throw invalidToken('the client certificate has expired');
    return {
      participantId: registered.participantId,
      role: registered.role,
      clientId: `${MTLS_CLIENT_PREFIX}${registered.x5tS256}`,
      name: registered.name,
      certificateThumbprint: registered.x5tS256,
      via: 'mtls',
    };
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

/** What the guard asks of a route: whether it is @Public(), and the roles its @Roles() allow (none: any role). */
interface RoutePolicy {
  isPublic: boolean;
  roles: Role[] | undefined;
}

/** 403 when the route's @Roles() leave out the caller's role. */
function checkRole(caller: Caller, route: RoutePolicy): boolean {
  const { roles } = route;
  if (roles && !roles.includes(caller.role)) {
    throw new ForbiddenError(`role "${caller.role}" may not perform this operation; allowed: ${roles.join(', ')}`);
  }
  return true;
}

/** Whether the request carries an Authorization header at all (then it is a token request, whatever the certificate). */
function hasAuthorization(req: GuardedRequest): boolean {
  const value = req.headers.authorization;
  return typeof value === 'string' ? value.trim() !== '' : Array.isArray(value) && value.length > 0;
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
