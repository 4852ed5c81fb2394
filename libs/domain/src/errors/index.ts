/**
 * Domain errors: what went wrong, in the product's terms. Services and repositories throw these; they never
 * decide an HTTP status. The one exception filter of each service (`@dtp/service-kit` JsonExceptionFilter) maps
 * each `kind` to its status (DOMAIN_ERROR_STATUS there) and sends `body` verbatim, so the answer's JSON is the
 * spec's exact body (`{message, reason}`, `{detail}`, RFC 6749 `{error, error_description}`, ...).
 */
import type { ValidationDetailItem } from '../dto/validation-detail';
import { MAX_VALIDATION_DETAILS } from '../rules/limits';

export type DomainErrorKind =
  | 'invalid' // the request breaks a rule of its content (422)
  | 'bad_request' // the request is malformed for the protocol (400; RFC 6749 errors other than invalid_client)
  | 'unauthenticated' // no valid credentials (401)
  | 'forbidden' // known caller, not allowed (403)
  | 'not_found' // 404
  | 'conflict' // the state of the resource refuses it (409)
  | 'gone' // it existed and is gone for good (410)
  | 'precondition_failed' // 412
  | 'too_large' // 413
  | 'rate_limited' // 429 (retryAfterSeconds)
  | 'unavailable'; // a dependency is away; retry later (503, retryAfterSeconds)

export interface DomainErrorOptions {
  /** `Retry-After` the client is asked to honour (rate_limited, unavailable). */
  retryAfterSeconds?: number;
  /** `WWW-Authenticate` challenge (unauthenticated). */
  challenge?: string;
  /** Extra response headers that belong to the protocol (e.g. RFC 6749's `Cache-Control: no-store`). */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly retryAfterSeconds?: number;
  readonly challenge?: string;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    readonly kind: DomainErrorKind,
    /** The exact JSON body of the answer. */
    readonly body: Readonly<Record<string, unknown>>,
    options: DomainErrorOptions = {},
  ) {
    super(typeof body.message === 'string' ? body.message : typeof body.detail === 'string' ? body.detail : kind, { cause: options.cause });
    this.name = new.target.name;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.challenge = options.challenge;
    this.headers = options.headers;
  }
}

const messageBody = (message: string, extra?: Record<string, unknown>) => ({ message, ...(extra ?? {}) });

/** 404: `{message}` (or the exact body given). */
export class NotFoundError extends DomainError {
  constructor(messageOrBody: string | Record<string, unknown>, options?: DomainErrorOptions) {
    super('not_found', typeof messageOrBody === 'string' ? messageBody(messageOrBody) : messageOrBody, options);
  }
}

/** 403: `{message, reason}` (reason: a stable machine-readable word, e.g. `not_holder`). */
export class ForbiddenError extends DomainError {
  constructor(message: string, reason?: string, options?: DomainErrorOptions) {
    super('forbidden', messageBody(message, reason === undefined ? undefined : { reason }), options);
  }
}

/** 409: `{message, reason}`. */
export class ConflictError extends DomainError {
  constructor(message: string, reason?: string, extra?: Record<string, unknown>, options?: DomainErrorOptions) {
    super('conflict', messageBody(message, { ...(reason === undefined ? {} : { reason }), ...(extra ?? {}) }), options);
  }
}

/** 410: `{message}`. */
export class GoneError extends DomainError {
  constructor(messageOrBody: string | Record<string, unknown>, options?: DomainErrorOptions) {
    super('gone', typeof messageOrBody === 'string' ? messageBody(messageOrBody) : messageOrBody, options);
  }
}

/** 412: `{message}`. */
export class PreconditionFailedError extends DomainError {
  constructor(messageOrBody: string | Record<string, unknown>, options?: DomainErrorOptions) {
    super('precondition_failed', typeof messageOrBody === 'string' ? messageBody(messageOrBody) : messageOrBody, options);
  }
}

/** 413: `{message}`. */
export class TooLargeError extends DomainError {
  constructor(message: string, extra?: Record<string, unknown>, options?: DomainErrorOptions) {
    super('too_large', messageBody(message, extra), options);
  }
}

/** 422 with the validation body `{detail: [{loc, msg, type}], message}` (or another exact body). */
export class InvalidError extends DomainError {
  constructor(body: Record<string, unknown>, options?: DomainErrorOptions) {
    super('invalid', body, options);
  }
}

/** 429 with `Retry-After`. */
export class RateLimitedError extends DomainError {
  constructor(body: Record<string, unknown>, retryAfterSeconds: number, options?: DomainErrorOptions) {
    super('rate_limited', body, { ...options, retryAfterSeconds });
  }
}

/** 503 with `Retry-After`: `{message}`, plus `extra` fields when given (e.g. `request_id`). */
export class UnavailableError extends DomainError {
  constructor(message: string, retryAfterSeconds: number, options?: DomainErrorOptions, extra?: Record<string, unknown>) {
    super('unavailable', messageBody(message, extra), { ...options, retryAfterSeconds });
  }
}

/** 401 with a `WWW-Authenticate` challenge. */
export class UnauthenticatedError extends DomainError {
  constructor(body: Record<string, unknown>, challenge: string, options?: DomainErrorOptions) {
    super('unauthenticated', body, { ...options, challenge });
  }
}

/**
 * The 422 of fields that break a rule: `{detail: [{loc, msg, type}], message}`, the body the kit's validation pipe
 * answers (`RequestValidationException`), so a rule checked in a service reads like one checked on the DTO. At most
 * MAX_VALIDATION_DETAILS entries are sent; `detail_omitted` counts the rest.
 */
export function invalidFields(details: readonly ValidationDetailItem[]): InvalidError {
  return new InvalidError(validationBody(details));
}

/**
 * A 422's body: the first MAX_VALIDATION_DETAILS entries of `details`, `message` summing them up (`<path>: <msg>`,
 * `; ` between) and `detail_omitted` counting the rest when there are more. One form for every 422 of fields, the
 * validation pipe's (service-kit's `RequestValidationException`) and a service's rule (`invalidFields`).
 */
export function validationBody(details: readonly ValidationDetailItem[]): { detail: ValidationDetailItem[]; message: string; detail_omitted?: number } {
  const shown = details.slice(0, MAX_VALIDATION_DETAILS);
  const omitted = details.length - shown.length;
  const message = shown.map((d) => `${d.loc.slice(1).join('.') || d.loc[0]}: ${d.msg}`).join('; ');
  return {
    detail: shown,
    message: omitted > 0 ? `${message}; and ${omitted} more` : message,
    ...(omitted > 0 ? { detail_omitted: omitted } : {}),
  };
}
