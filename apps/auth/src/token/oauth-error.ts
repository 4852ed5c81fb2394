import { HttpErrorWithHeaders } from '@dtp/service-kit';
import type { OAuthErrorCode } from '@dtp/domain';

/** Every token endpoint answer, success or error, must not be cached (RFC 6749 5.1). */
export const NO_STORE_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

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

/** An RFC 6749 5.2 error: `{error, error_description}` with the no-store headers. */
export class OAuthError extends HttpErrorWithHeaders {
  constructor(
    readonly code: OAuthErrorCode | 'too_many_requests',
    description: string,
    headers: Record<string, string> = {},
  ) {
    super({ error: code, error_description: description }, STATUS[code], { ...NO_STORE_HEADERS, ...headers });
  }
}
