/** One entry of a 422 body's `detail` list: where (`["body", "rough", "carats"]`), what, and a machine type. */
export interface DtpValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Base class of every error the SDK throws. */
export class DtpError extends Error {
  override name = 'DtpError';
}

/**
 * An answer with a status outside 2xx (after any retries). `reason` is the service's machine-readable reason
 * (`diamond_not_unique`, `in_transit`, `not_holder`, ...; the token endpoint's OAuth `error` code), `detail` the
 * list of a 422's field errors (empty otherwise), `requestId` the `X-Request-Id` the service answered with (quote
 * it when you report a problem), `body` the parsed body as it came.
 */
export class DtpApiError extends DtpError {
  override name = 'DtpApiError';
  readonly status: number;
  readonly reason: string | undefined;
  readonly detail: DtpValidationDetail[];
  readonly requestId: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;

  constructor(init: { status: number; method: string; url: string; body: unknown; requestId?: string; retryAfterSeconds?: number }) {
    const body = init.body;
    const record = isRecord(body) ? body : {};
    const reason = stringField(record, 'reason') ?? stringField(record, 'error');
    const detail = Array.isArray(record.detail) ? record.detail.filter(isDetail) : [];
    const text =
      stringField(record, 'message') ??
      stringField(record, 'error_description') ??
      stringField(record, 'detail') ??
      (typeof body === 'string' && body.length > 0 ? body.slice(0, 300) : undefined);
    const fields = detail.length > 0 ? `: ${detail.map((d) => `${d.loc.join('.')} ${d.msg}`).join('; ')}` : '';
    super(`${init.method} ${init.url} answered ${init.status}${reason ? ` ${reason}` : ''}${text ? `: ${text}` : ''}${fields}`);
    this.status = init.status;
    this.reason = reason;
    this.detail = detail;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = init.method;
    this.url = init.url;
    this.body = body;
  }

  /** The error of an answer whose body was read (`body`: parsed JSON, or the text). */
  static fromResponse(response: Response, body: unknown, request: { method: string; url?: string }): DtpApiError {
    return new DtpApiError({
      status: response.status,
      method: request.method,
      url: request.url ?? response.url,
      body,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
}

/** The request never got an answer (connection refused or reset, DNS, timeout), after any retries. */
export class DtpNetworkError extends DtpError {
  override name = 'DtpNetworkError';
  constructor(
    readonly method: string,
    readonly url: string,
    override readonly cause: unknown,
    readonly attempts: number,
  ) {
    super(`${method} ${url} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${describeCause(cause)}`);
  }
}

/** True when `err` is a DtpApiError, optionally of the given status and reason. */
export function isDtpApiError(err: unknown, status?: number, reason?: string): err is DtpApiError {
  return err instanceof DtpApiError && (status === undefined || err.status === status) && (reason === undefined || err.reason === reason);
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error's message and, for fetch's "fetch failed", the system error code under it (ECONNREFUSED, ...). */
function describeCause(cause: unknown): string {
  if (!isObject(cause) || typeof cause.message !== 'string') return String(cause);
  const inner = cause.cause;
  const code = isObject(inner) && typeof inner.code === 'string' ? inner.code : undefined;
  const name = typeof cause.name === 'string' && cause.name !== 'Error' ? `${cause.name}: ` : '';
  return `${name}${cause.message}${code ? ` (${code})` : ''}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringField(r: Record<string, unknown>, key: string): string | undefined {
  const v = r[key];
  return typeof v === 'string' ? v : undefined;
}

function isDetail(v: unknown): v is DtpValidationDetail {
  return isRecord(v) && Array.isArray(v.loc) && typeof v.msg === 'string' && typeof v.type === 'string';
}
