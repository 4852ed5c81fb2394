/**
 * How a consumer tells a failure to park from one to retry: the handler's two errors, and the known temporary
 * errors of the database, the network and S3/HTTP clients.
 */

/**
 * Throw from a handler when the event can never be applied (a rule refuses it, a reference is unknown for
 * good, ...): the transaction rolls back, the message goes to `parked_events` with `reason`, the partition moves on.
 */
export class ParkEventError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ParkEventError';
  }
}

/**
 * Throw from a handler when the failure is temporary (another service or store is away): the message is retried
 * in place with backoff; if it still fails after `maxTransientAttempts` attempts (counted only while the database
 * answers), it is parked as `retries_exhausted` so that the partition moves on.
 */
export class RetryEventError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryEventError';
  }
}

/*
 * Temporary errors: about the connection or the server's state, not the event. Retried in place (the partition
 * waits); parked only after maxTransientAttempts attempts made while the database answered. Everything else is
 * parked at once with its message.
 */
/** SQLSTATE classes: 08 connection exception, 40 transaction rollback (40001 serialization failure, 40P01
 * deadlock), 53 insufficient resources (too many connections, out of memory, disk full), 58 system error. */
const TRANSIENT_SQLSTATE_CLASSES = /^(08|40|53|58)/;
/** Single SQLSTATEs: lock not available, query canceled (statement timeout), admin/crash shutdown, starting up. */
const TRANSIENT_SQLSTATES = new Set(['55P03', '57014', '57P01', '57P02', '57P03']);
/** Node network errors. */
const TRANSIENT_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ESOCKETTIMEDOUT',
]);
/** Driver errors without a code (node-postgres, the TypeORM pool). */
const TRANSIENT_MESSAGES =
  /connection terminated|connection ended unexpectedly|terminating connection|timeout exceeded when trying to connect|connection timeout|client has encountered a connection error|connect ECONNREFUSED/i;

/**
 * True for the known temporary errors (listed above), RetryEventError, and an S3/HTTP client error that says it is
 * retryable (`$retryable`, a 429 or 5xx status); looks through `driverError` and `cause` (a few levels).
 */
export function isTransientError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && e !== undefined; depth += 1) {
    if (e instanceof RetryEventError) return true;
    if (e instanceof ParkEventError) return false;
    const x = e as {
      code?: unknown;
      message?: unknown;
      $retryable?: unknown;
      $metadata?: { httpStatusCode?: unknown };
      driverError?: unknown;
      cause?: unknown;
    };
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (code && /^[0-9A-Z]{5}$/.test(code) && (TRANSIENT_SQLSTATE_CLASSES.test(code) || TRANSIENT_SQLSTATES.has(code))) return true;
    if (code && TRANSIENT_NET_CODES.has(code)) return true;
    if (x.$retryable) return true;
    const status = x.$metadata?.httpStatusCode;
    if (typeof status === 'number' && (status === 429 || status >= 500)) return true;
    if (typeof x.message === 'string' && TRANSIENT_MESSAGES.test(x.message)) return true;
    e = x.driverError ?? x.cause;
  }
  return false;
}

/** An error's message for logs and parked rows; never throws (a hostile error's getters may). */
export const errorText = (err: unknown): string => {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'unprintable error';
  }
};
