import { HttpErrorWithHeaders } from '@dtp/service-kit';
import type { OAuthErrorCode } from '@dtp/domain';

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

const STATUS: Record<OAuthErrorCode | 'too_many_requests', number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  too_many_requests: 429,
};

/**
 * An RFC 6749 5.2 error: `{error, error_description}` with the no-store headers. The description always goes
 * through `safeDescription`, so no wording, and no client input quoted in it, can put a character outside the
 * RFC's set into an answer.
 */
export class OAuthError extends HttpErrorWithHeaders {
  readonly description: string;

  constructor(
    readonly code: OAuthErrorCode | 'too_many_requests',
    description: string,
    headers: Record<string, string> = {},
  ) {
    const safe = safeDescription(description);
    super({ error: code, error_description: safe }, STATUS[code], { ...NO_STORE_HEADERS, ...headers });
    this.description = safe;
  }
}
