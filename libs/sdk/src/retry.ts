import { DtpNetworkError, parseRetryAfter } from './errors';

/** How the SDK retries. Every member is optional; the defaults suit an interactive integration. */
export interface RetryOptions {
  /** Further attempts after the first one (default 4, so at most 5 requests; 0 turns retries off). */
  retries?: number;
  /** First backoff ceiling; it doubles each attempt (default 250 ms). */
  baseDelayMs?: number;
  /** Largest backoff ceiling (default 8,000 ms). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned as it is (default 60,000 ms). */
  maxRetryAfterMs?: number;
  /** Time limit of each attempt; a timed-out attempt counts as a network error (default: none). */
  timeoutMs?: number;
  /** Source of jitter in [0, 1) (tests pass a fixed one). */
  random?: () => number;
  /** Called before each wait, e.g. to log it. */
  onRetry?: (info: RetryInfo) => void;
}

/** The fetch the SDK sends with: the global one by default. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** What the SDK waits before the next attempt. */
  delayMs: number;
  /** The status that is retried, or undefined for a network error. */
  status?: number;
  error?: unknown;
}

export const DEFAULT_RETRY: Required<Omit<RetryOptions, 'onRetry' | 'timeoutMs'>> = {
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  random: Math.random,
};

/** Methods that are safe to repeat by definition (RFC 9110 9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * May this request be sent again when it got no answer or a 429/503? Idempotent methods always; POST and PATCH
 * only with an `Idempotency-Key` (the service then answers a repeat with the first answer and does nothing twice).
 */
export function isRetryEligible(method: string, headers: Headers): boolean {
  const m = method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(m)) return true;
  return (m === 'POST' || m === 'PATCH') && (headers.get('idempotency-key') ?? '') !== '';
}

/** Statuses worth another try: rate limited, temporarily unavailable. */
export const RETRY_STATUSES = new Set([429, 503]);

/**
 * The wait before attempt `attempt + 1` (attempt counted from 0): "full jitter" exponential backoff, a random
 * time up to min(maxDelayMs, baseDelayMs * 2^attempt). With a `Retry-After`, at least that long plus up to one
 * base delay of jitter (so clients told the same time do not all come back together).
 */
export function backoffDelay(attempt: number, retryAfterSeconds: number | undefined, options: RetryOptions = {}): number {
  const o = { ...DEFAULT_RETRY, ...options };
  const jitter = o.random();
  if (retryAfterSeconds !== undefined) return Math.round(retryAfterSeconds * 1000 + jitter * o.baseDelayMs);
  const ceiling = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
  return Math.round(jitter * ceiling);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A request that can be built again for each attempt (its body buffered once). */
export interface ReplayableRequest {
  method: string;
  url: string;
  headers: Headers;
  body: ArrayBuffer | undefined;
  signal: AbortSignal | null;
}

/** The request openapi-fetch built, its body read once so that each attempt can send it again. */
export async function toReplayable(request: Request): Promise<ReplayableRequest> {
  const body = request.body === null ? undefined : await request.arrayBuffer();
  return { method: request.method, url: request.url, headers: new Headers(request.headers), body, signal: request.signal };
}

/**
 * Sends `request` with `fetchImpl`, retrying network errors, 429 and 503 (and a 409 `idempotency_key_in_use`,
 * whose first attempt is still running) when the request is eligible (isRetryEligible, or `safeToRepeat`).
 * `prepare` may change the headers of each attempt (the access token). Answers the last response; throws
 * DtpNetworkError when the last attempt got no answer, and the abort reason when the caller's signal aborts.
 */
export async function sendWithRetry(
  request: ReplayableRequest,
  fetchImpl: FetchLike,
  options: RetryOptions = {},
  extra: { prepare?: (headers: Headers) => Promise<void>; safeToRepeat?: boolean } = {},
): Promise<Response> {
  const o = { ...DEFAULT_RETRY, ...options };
  const { prepare } = extra;
  const eligible = extra.safeToRepeat ?? isRetryEligible(request.method, request.headers);
  const maxAttempts = eligible ? o.retries + 1 : 1;
  for (let attempt = 1; ; attempt++) {
    const headers = new Headers(request.headers);
    if (prepare) await prepare(headers);
    const signals = [request.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : null].filter((s): s is AbortSignal => s !== null);
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    let response: Response;
    try {
      response = await fetchImpl(request.url, { method: request.method, headers, body: request.body, signal, redirect: 'follow' });
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (attempt >= maxAttempts) throw new DtpNetworkError(request.method, request.url, err, attempt);
      const delayMs = backoffDelay(attempt - 1, undefined, o);
      options.onRetry?.({ method: request.method, url: request.url, attempt, delayMs, error: err });
      await sleep(delayMs, request.signal);
      continue;
    }
    if (attempt >= maxAttempts || !(await isRetryableAnswer(response))) return response;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (retryAfter !== undefined && retryAfter * 1000 > o.maxRetryAfterMs) return response;
    const delayMs = backoffDelay(attempt - 1, retryAfter, o);
    options.onRetry?.({ method: request.method, url: request.url, attempt, delayMs, status: response.status });
    await response.body?.cancel().catch(() => undefined);
    await sleep(delayMs, request.signal);
  }
}

async function isRetryableAnswer(response: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(response.status)) return true;
  if (response.status !== 409) return false;
  // The first request with this Idempotency-Key is still running: its answer will be there in a moment.
  try {
    const body = (await response.clone().json()) as { reason?: unknown };
    return body?.reason === 'idempotency_key_in_use';
  } catch {
    return false;
  }
}
