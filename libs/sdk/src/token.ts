import { DtpApiError } from './errors';
import { FetchLike, RetryOptions, sendWithRetry } from './retry';

export interface ClientCredentials {
  clientId: string;
  /** Omitted: the client authenticates by its TLS certificate (RFC 8705 `self_signed_tls_client_auth`; pass a `fetch` that presents it). */
  clientSecret?: string;
}

export interface TokenProviderOptions extends ClientCredentials {
  /** The auth service's base address (`{auth_url}`); tokens come from `{auth_url}/oauth/token`. */
  authUrl: string;
  /** Ask for a new token this long before the current one expires (default 60 s, at most half its lifetime). */
  refreshBeforeExpirySeconds?: number;
  retry?: RetryOptions;
  fetch?: FetchLike;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface CachedToken {
  token: string;
  /** When to ask for the next one (ms, local clock). */
  refreshAt: number;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 4.4) against the auth service: one access token per audience (the
 * platform, search and gis APIs each have their own), cached and renewed `refreshBeforeExpirySeconds` before it
 * expires. Expiry is taken from `expires_in` on the local clock (no clock skew with the server matters), or from
 * the token's `exp` claim when the answer has no `expires_in`. Concurrent callers share one token request.
 * Token requests are form-encoded with the credentials in the body; 429, 503 and network errors are retried.
 */
export class ClientCredentialsTokenProvider {
  private readonly cache = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();
  private readonly fetchImpl: FetchLike;
  private readonly now: () => number;

  constructor(private readonly options: TokenProviderOptions) {
    this.fetchImpl = options.fetch ?? ((url, init) => fetch(url, init));
    this.now = options.now ?? Date.now;
  }

  get tokenUrl(): string {
    return `${this.options.authUrl.replace(/\/+$/, '')}/oauth/token`;
  }

  /** A valid access token for `audience`, from the cache while it is fresh. */
  async getToken(audience: string): Promise<string> {
    const cached = this.cache.get(audience);
    if (cached && this.now() < cached.refreshAt) return cached.token;
    let pending = this.pending.get(audience);
    if (!pending) {
      pending = this.request(audience).finally(() => this.pending.delete(audience));
      this.pending.set(audience, pending);
    }
    const fresh = await pending;
    this.cache.set(audience, fresh);
    return fresh.token;
  }

  /** Forgets the cached token of `audience` if it is still `token` (after a 401 with it). */
  invalidate(audience: string, token?: string): void {
    const cached = this.cache.get(audience);
    if (cached && (token === undefined || cached.token === token)) this.cache.delete(audience);
  }

  private async request(audience: string): Promise<CachedToken> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.options.clientId,
      ...(this.options.clientSecret !== undefined ? { client_secret: this.options.clientSecret } : {}),
      audience,
    }).toString();
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
    const requested = this.now();
    const response = await sendWithRetry(
      // Asking for a token has no effect beyond issuing one, so it is retried like an idempotent request.
      { method: 'POST', url: this.tokenUrl, headers, body: new TextEncoder().encode(body).buffer as ArrayBuffer, signal: null },
      this.fetchImpl,
      this.options.retry,
      { safeToRepeat: true },
    );
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text in the error
    }
    if (!response.ok) throw DtpApiError.fromResponse(response, parsed, { method: 'POST', url: this.tokenUrl });
    const answer = parsed as { access_token?: unknown; expires_in?: unknown };
    if (typeof answer.access_token !== 'string') {
      throw new DtpApiError({ status: response.status, method: 'POST', url: response.url, body: parsed });
    }
    const lifetimeSeconds = typeof answer.expires_in === 'number' ? answer.expires_in : lifetimeFromClaims(answer.access_token, requested);
    const margin = Math.min(this.options.refreshBeforeExpirySeconds ?? 60, lifetimeSeconds / 2);
    return { token: answer.access_token, refreshAt: requested + (lifetimeSeconds - margin) * 1000 };
  }
}

/** Seconds left by the JWT's `exp` claim (0 when it cannot be read: the token is then used once). */
function lifetimeFromClaims(token: string, nowMs: number): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? Math.max(0, payload.exp - nowMs / 1000) : 0;
  } catch {
    return 0;
  }
}
