import { DomainError, DomainErrorKind, OAuthErrorCode } from '@dtp/domain';

/** Every token endpoint answer, success or error, must not be cached (RFC 6749 5.1). */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** RFC 6749 5.2: `error_description` holds only `%x20-21 / %x23-5B / %x5D-7E` (printable ASCII minus `"` and `\`). */
export const ERROR_DESCRIPTION_CHARSET = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;
const OUTSIDE_CHARSET = /[^\x20\x21\x23-\x5B\x5D-\x7E]/gu;
const MAX_DESCRIPTION = 300;
const MAX_ECHO = 64;

/**
 * Makes any text a valid `error_description`: `"` becomes `'`, `\` becomes `/`, line breaks and tabs become a
 * space, and every other character outside the RFC 6749 5.2 set (control characters, NUL, DEL, non-ASCII, lone
 * surrogates) becomes `?`, one per code point. Capped at 300 characters.
 */
export function safeDescription(text: string): string {
  const cleaned = text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[\t\r\n]+/g, ' ')
    .replace(OUTSIDE_CHARSET, '?');
  return cleaned.length > MAX_DESCRIPTION ? `${cleaned.slice(0, MAX_DESCRIPTION - 3)}...` : cleaned;
}

/**
 * A value the client sent, fit to be quoted in a description: single-quoted, cut to 64 characters and made safe
 * by `safeDescription` (so a quote, backslash, NUL or non-ASCII character in it never reaches the answer as-is).
 */
export function clientValue(value: string): string {
  const cut = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}...` : value;
  return `'${safeDescription(cut)}'`;
}

/**
 * What each error is in domain terms (the kit's filter turns the kind into the status): RFC 6749 5.2 answers 400
 * to all but invalid_client, which is 401; the limits' too_many_requests is 429.
 */
const KIND: Record<OAuthErrorCode | 'too_many_requests', DomainErrorKind> = {
  invalid_request: 'bad_request',
  invalid_client: 'unauthenticated',
  invalid_grant: 'bad_request',
  unauthorized_client: 'bad_request',
  unsupported_grant_type: 'bad_request',
  invalid_scope: 'bad_request',
  invalid_target: 'bad_request',
  too_many_requests: 'rate_limited',
};

export interface OAuthErrorOptions {
  /** `WWW-Authenticate` for invalid_client when the client authenticated with HTTP Basic (RFC 6749 5.2). */
  challenge?: string;
  /** `Retry-After` of too_many_requests. */
  retryAfterSeconds?: number;
}

/**
 * An RFC 6749 5.2 error: `{error, error_description}` with the no-store headers (5.1). The description always
 * goes through `safeDescription`, so no wording, and no client input quoted in it, can put a character outside
 * the RFC's set into an answer.
 */
export class OAuthError extends DomainError {
  readonly description: string;

  constructor(
    readonly code: OAuthErrorCode | 'too_many_requests',
    description: string,
    options: OAuthErrorOptions = {},
  ) {
    const safe = safeDescription(description);
    super(KIND[code], { error: code, error_description: safe }, { headers: NO_STORE_HEADERS, ...options });
    this.description = safe;
  }
}
