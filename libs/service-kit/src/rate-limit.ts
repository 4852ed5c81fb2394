import { CallHandler, DynamicModule, ExecutionContext, Injectable, Module, NestInterceptor } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Observable } from 'rxjs';
import { RateLimitedError } from '@dtp/domain';

/**
 * Per-client rate limits of a read or write API (platform, search, gis), in memory per replica, counted with
 * rate-limiter-flexible (the library auth's token endpoint already uses):
 * - a request with a verified access token counts against its client id (`sub`/`client_id`, from the guard's
 *   `request.caller.clientId`): RATE_LIMIT_PER_CLIENT requests per window;
 * - any other request that reaches a route (the public ones: passport pages, custody keys) counts against the
 *   client address (`request.ip`, X-Forwarded-For believed from TRUSTED_PROXIES only): RATE_LIMIT_PER_IP.
 * Each window is RATE_LIMIT_WINDOW_SECONDS long, starting at the key's first request. 0 (the default) turns a
 * limit off; both off (npm start, the tests), nothing is registered at all.
 *
 * It runs as a Nest interceptor, after the guard: a client is keyed by the identity its token proves, never by
 * what an unverified token claims (that would let anyone spend another client's budget). The answers:
 * - within the limit: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and
 *   `RateLimit-Policy` (`<limit>;w=<window>`), draft-ietf-httpapi-ratelimit-headers-06 (the form most clients and
 *   proxies read today);
 * - past it: 429 `{message, reason: "rate_limited"}` through the kit's one exception filter, with `Retry-After`
 *   (seconds) and the same four headers (`RateLimit-Remaining: 0`).
 * `/health/*` and `/metrics` are never limited (probes and scrapers).
 */
export interface RateLimitSettings {
  /** Requests per window per authenticated client id; 0 = off. */
  RATE_LIMIT_PER_CLIENT: number;
  /** Requests per window per client address, for requests without a verified token; 0 = off. */
  RATE_LIMIT_PER_IP: number;
  /** The window, in seconds. */
  RATE_LIMIT_WINDOW_SECONDS: number;
}

/** The outcome of one request against its limit. */
export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the key's window ends (at least 1). */
  resetSeconds: number;
  headers: Record<string, string>;
}

/** Who a request counts against: its verified client id, else its address. */
export interface RateLimitKey {
  clientId?: string;
  ip: string;
}

export const RATE_LIMIT_REASON = 'rate_limited';

/** The limiters themselves, without Nest (unit-tested on their own). */
export class RateLimits {
  private readonly perClient?: RateLimiterMemory;
  private readonly perIp?: RateLimiterMemory;

  constructor(readonly settings: RateLimitSettings) {
    const duration = settings.RATE_LIMIT_WINDOW_SECONDS;
    if (settings.RATE_LIMIT_PER_CLIENT > 0)
      this.perClient = new RateLimiterMemory({ keyPrefix: 'api_client', points: settings.RATE_LIMIT_PER_CLIENT, duration });
    if (settings.RATE_LIMIT_PER_IP > 0) this.perIp = new RateLimiterMemory({ keyPrefix: 'api_ip', points: settings.RATE_LIMIT_PER_IP, duration });
  }

  get enabled(): boolean {
    return this.perClient !== undefined || this.perIp !== undefined;
  }

  /** Counts one request; undefined when no limit applies to it. */
  async take(key: RateLimitKey): Promise<RateLimitOutcome | undefined> {
    const [limiter, id, limit] =
      key.clientId !== undefined ? [this.perClient, key.clientId, this.settings.RATE_LIMIT_PER_CLIENT] : [this.perIp, key.ip, this.settings.RATE_LIMIT_PER_IP];
    if (!limiter) return undefined;
    let res: RateLimiterRes;
    let allowed = true;
    try {
      res = await limiter.consume(id);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
      allowed = false;
    }
    const remaining = Math.max(0, res.remainingPoints);
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return { allowed, limit, remaining, resetSeconds, headers: rateLimitHeaders(limit, remaining, resetSeconds, this.settings.RATE_LIMIT_WINDOW_SECONDS) };
  }
}

/** The draft-ietf-httpapi-ratelimit-headers-06 fields of one answer. */
export function rateLimitHeaders(limit: number, remaining: number, resetSeconds: number, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(resetSeconds),
    'RateLimit-Policy': `${limit};w=${windowSeconds}`,
  };
}

const UNLIMITED_PATH = /^\/(health\/|metrics$)/;

/** The Nest side: counts each HTTP request after the guard, sets the headers, throws the 429. */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  constructor(private readonly limits: RateLimits) {}

  async intercept(ctx: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (ctx.getType() !== 'http') return next.handle();
    const http = ctx.switchToHttp();
    const request = http.getRequest<FastifyRequest & { caller?: { clientId?: unknown } }>();
    const path = request.routeOptions?.url ?? request.url;
    if (UNLIMITED_PATH.test(path)) return next.handle();
    const clientId = typeof request.caller?.clientId === 'string' ? request.caller.clientId : undefined;
    const outcome = await this.limits.take({ clientId, ip: request.ip });
    if (!outcome) return next.handle();
    if (!outcome.allowed) {
      const who = clientId !== undefined ? 'this client' : 'this address';
      throw new RateLimitedError(
        {
          message: `too many requests from ${who}: at most ${outcome.limit} per ${this.limits.settings.RATE_LIMIT_WINDOW_SECONDS} s; retry in ${outcome.resetSeconds} s`,
          reason: RATE_LIMIT_REASON,
        },
        outcome.resetSeconds,
        { headers: outcome.headers },
      );
    }
    void http.getResponse<FastifyReply>().headers(outcome.headers);
    return next.handle();
  }
}

/**
 * Import into a service's root module: registers the interceptor globally when a limit is on, nothing otherwise.
 * The settings are the service's config (RATE_LIMIT_* of TokenCheckingConfig).
 */
@Module({})
export class RateLimitModule {
  static forRoot(settings: RateLimitSettings): DynamicModule {
    const limits = new RateLimits(settings);
    return {
      module: RateLimitModule,
      providers: limits.enabled ? [{ provide: APP_INTERCEPTOR, useValue: new RateLimitInterceptor(limits) }] : [],
    };
  }
}

const RATE_LIMIT_RESPONSE_HEADERS = {
  'Retry-After': { description: 'Seconds until the window ends and requests are accepted again.', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Limit': {
    description: 'Requests allowed per window to this client (draft-ietf-httpapi-ratelimit-headers-06).',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window (0 here).', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends.', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Policy': { description: 'The policy: `<limit>;w=<window seconds>`.', schema: { type: 'string', pattern: '^\\d+;w=\\d+$', maxLength: 32 } },
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const COUNTED_NOTE =
  ' Sent on every answer to a request counted against a limit, where the deployment sets RATE_LIMIT_PER_CLIENT / RATE_LIMIT_PER_IP; ' +
  'not on a 401 or a role 403, which the token check answers before the request is counted.';

/** The draft-06 fields on the answers to a counted request (2xx and 4xx), as RateLimitInterceptor sets them. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: `Requests allowed per window to this client (draft-ietf-httpapi-ratelimit-headers-06).${COUNTED_NOTE}`,
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends.', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Policy': { description: 'The policy: `<limit>;w=<window seconds>`.', schema: { type: 'string', pattern: '^\\d+;w=\\d+$', maxLength: 32 } },
};
const HEADER_REFS = Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * A DocsOptions transform: documents the 429 on every operation of the document (what RateLimitInterceptor
 * limits: every route but `/health/*` and `/metrics`, which the documents do not list), and the RateLimit-*
 * headers on its 2xx and 4xx answers but 401. Documented whether or not a deployment turns the limits on, so
 * that clients handle it (the headers are optional: absent where no limit is set).
 */
export function documentRateLimits(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (UNLIMITED_PATH.test(path)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      op.responses['429'] ??= {
        description:
          "Too many requests from this client (its token's client id; the client address for requests without a token) in the current window, where the deployment sets RATE_LIMIT_PER_CLIENT / RATE_LIMIT_PER_IP (`reason`: `rate_limited`). Wait `Retry-After` seconds.",
        headers: RATE_LIMIT_RESPONSE_HEADERS,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/MessageErrorResponse' } } },
      };
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[24]/.test(status) || status === '401' || status === '429' || !response || '$ref' in response) continue;
        response.headers = { ...HEADER_REFS, ...(response.headers ?? {}) };
      }
    }
  }
  document.components ??= {};
  document.components.headers = { ...(document.components.headers ?? {}), ...RATE_LIMIT_HEADERS };
  return document;
}
