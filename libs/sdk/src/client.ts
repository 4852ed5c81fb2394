import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths as AuthPaths } from './generated/auth';
import type { paths as GisPaths } from './generated/gis';
import type { paths as PlatformPaths } from './generated/platform';
import type { paths as SearchPaths } from './generated/search';
import { DtpApiError, DtpError } from './errors';
import { FetchLike, RetryOptions, sendWithRetry, toReplayable } from './retry';
import { ClientCredentialsTokenProvider } from './token';
import { TlsClientOptions, tlsFetch } from './tls';

export type ApiService = 'platform' | 'search' | 'gis';

/** Where access tokens come from: the built-in client-credentials provider, or your own. */
export interface TokenSource {
  getToken(audience: string): Promise<string>;
  /** Called after a 401 with `token`, so the next getToken fetches a new one. */
  invalidate?(audience: string, token: string): void;
}

export interface DtpClientOptions {
  /** `{auth_url}`: tokens (and, with `adminToken`, onboarding). */
  authUrl?: string;
  /** `{base_url}`: diamonds, files, shipments, lifecycle. */
  platformUrl?: string;
  /** `{search_url}` without `/v1` (the paths carry it). */
  searchUrl?: string;
  /** `{gis_url}`: the grading labs' API. */
  gisUrl?: string;
  /** Client credentials from onboarding; with `authUrl` they give the built-in token provider. */
  clientId?: string;
  clientSecret?: string;
  /**
   * Token audiences, when they differ from the defaults: platform `{platformUrl}`, search `{searchUrl}/v1`,
   * gis `{gisUrl}` (docs/auth.md "Tokens"). Each is the public address the service was configured with.
   */
  audiences?: Partial<Record<ApiService, string>>;
  /** Your own token source instead of client credentials. */
  tokens?: TokenSource;
  /** The operator's admin token, sent to auth's `/admin/...` operations. */
  adminToken?: string;
  retry?: RetryOptions;
  /** Renew tokens this long before they expire (default 60 s). */
  refreshBeforeExpirySeconds?: number;
  /** Replaces the global fetch (e.g. one with a proxy dispatcher). */
  fetch?: FetchLike;
  /**
   * Mutual TLS with a legacy participant's registered client certificate (docs/auth.md "Mutual TLS"): every
   * `https:` request presents it. With `clientId` (no secret needed) tokens come from the token endpoint by the
   * certificate and are bound to it (RFC 8705); with no credentials at all, calls go without a token (legacy mode).
   */
  tls?: TlsClientOptions;
}

/**
 * Typed clients for the four services (openapi-fetch over the generated `paths`), each sending its service's
 * access token, a request id per call, and retrying what is safe to retry. Calls answer `{data, error,
 * response}` as openapi-fetch does; wrap them in `unwrap()` to get the data or a thrown `DtpApiError`.
 */
export interface DtpClient {
  readonly auth: Client<AuthPaths>;
  readonly platform: Client<PlatformPaths>;
  readonly search: Client<SearchPaths>;
  readonly gis: Client<GisPaths>;
  /** The token source in use (undefined without credentials). */
  readonly tokens: TokenSource | undefined;
  /** The audience tokens for `service` are asked for. */
  audience(service: ApiService): string;
}

/** The method and URL each response answered, for errors built from openapi-fetch's `{error, response}`. */
const answered = new WeakMap<Response, { method: string; url: string }>();

export function createDtpClient(options: DtpClientOptions): DtpClient {
  const fetchImpl: FetchLike = options.fetch ?? (options.tls ? tlsFetch(options.tls) : (url, init) => fetch(url, init));
  const tokens: TokenSource | undefined =
    options.tokens ??
    (options.authUrl && options.clientId && (options.clientSecret || options.tls)
      ? new ClientCredentialsTokenProvider({
          authUrl: options.authUrl,
          clientId: options.clientId,
          clientSecret: options.clientSecret,
          refreshBeforeExpirySeconds: options.refreshBeforeExpirySeconds,
          retry: options.retry,
          fetch: fetchImpl,
        })
      : undefined);

  const baseUrl = (service: 'auth' | ApiService): string => {
    const url = { auth: options.authUrl, platform: options.platformUrl, search: options.searchUrl, gis: options.gisUrl }[service];
    if (!url) throw new DtpError(`no address for the ${service} service: pass ${service}Url`);
    return url.replace(/\/+$/, '');
  };
  const audience = (service: ApiService): string => options.audiences?.[service] ?? (service === 'search' ? `${baseUrl('search')}/v1` : baseUrl(service));

  /** The fetch of one service's client: request id, credentials, retries, one new token after a 401. */
  const serviceFetch =
    (service: 'auth' | ApiService) =>
    async (request: Request): Promise<Response> => {
      const replay = await toReplayable(request);
      if (!replay.headers.has('x-request-id')) replay.headers.set('x-request-id', randomUUID());
      let used: { audience: string; token: string } | undefined;
      const prepare = async (headers: Headers) => {
        if (headers.has('authorization')) return;
        if (service === 'auth') {
          if (options.adminToken && new URL(replay.url).pathname.startsWith('/admin/')) headers.set('authorization', `Bearer ${options.adminToken}`);
          return;
        }
        if (!tokens) {
          if (options.tls) return; // legacy mode: the client certificate alone
          throw new DtpError(`no credentials for the ${service} API: pass clientId, clientSecret and authUrl (or tokens, or tls)`);
        }
        const aud = audience(service);
        const token = await tokens.getToken(aud);
        used = { audience: aud, token };
        headers.set('authorization', `Bearer ${token}`);
      };
      let response = await sendWithRetry(replay, fetchImpl, options.retry, { prepare });
      if (response.status === 401 && used && tokens?.invalidate) {
        // The token expired or its key was rotated between our check and the service's: one more try, new token.
        tokens.invalidate(used.audience, used.token);
        await response.body?.cancel().catch(() => undefined);
        used = undefined;
        response = await sendWithRetry(replay, fetchImpl, options.retry, { prepare });
      }
      answered.set(response, { method: replay.method, url: replay.url });
      return response;
    };

  const clients = new Map<string, unknown>();
  const lazy = <P extends object>(service: 'auth' | ApiService): Client<P> => {
    let client = clients.get(service) as Client<P> | undefined;
    if (!client) {
      client = createClient<P>({ baseUrl: baseUrl(service), fetch: serviceFetch(service) });
      clients.set(service, client);
    }
    return client;
  };

  return {
    get auth() {
      return lazy<AuthPaths>('auth');
    },
    get platform() {
      return lazy<PlatformPaths>('platform');
    },
    get search() {
      return lazy<SearchPaths>('search');
    },
    get gis() {
      return lazy<GisPaths>('gis');
    },
    tokens,
    audience,
  };
}

/** What an openapi-fetch call answers. */
export interface ApiAnswer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown DtpApiError carrying the status, reason, `detail` list and request id:
 * `const diamond = await unwrap(dtp.platform.POST('/diamonds/rough/create', { body }))`.
 */
export async function unwrap<T>(call: Promise<ApiAnswer<T>> | ApiAnswer<T>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw DtpApiError.fromResponse(response, error, answered.get(response) ?? { method: 'HTTP' });
}

/** A fresh Idempotency-Key (a random UUID): send one with a POST or PATCH to make it safe to retry. */
export function newIdempotencyKey(): string {
  return randomUUID();
}
