import { isCredentialText } from '../credentials/secret-hash';
import { clientValue, OAuthError } from './oauth-error';

/** The parameters of a token request after client authentication has been sorted out. */
export interface TokenParams {
  grantType: string;
  audience?: string;
  clientId?: string;
  clientSecret?: string;
  /** True when the credentials came from an `Authorization: Basic` header. */
  basic: boolean;
}

const BASIC_CHALLENGE = 'Basic realm="dtp"';

/** A failed client authentication; with Basic, RFC 6749 5.2 asks for a 401 with the matching challenge. */
export function invalidClient(basic: boolean, description = 'client authentication failed'): OAuthError {
  return new OAuthError('invalid_client', description, basic ? { challenge: BASIC_CHALLENGE } : {});
}

function param(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) throw new OAuthError('invalid_request', `parameter ${name} must not be repeated`);
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `parameter ${name} must be a string`);
  return value;
}

/** `Authorization: Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 2.3.1). */
function parseBasic(value: string): { clientId: string; clientSecret: string } {
  const decoded = Buffer.from(value.trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (!/^[A-Za-z0-9+/]+=*$/.test(value.trim()) || colon < 1) {
    throw invalidClient(true, 'malformed Basic credentials');
  }
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient(true, 'malformed Basic credentials');
  }
}

/**
 * Reads a token request from its body (JSON or form) and Authorization header. Order of checks: body shape,
 * grant_type (invalid_request / unsupported_grant_type), then one client authentication method only.
 */
export function parseTokenRequest(body: unknown, authorization: string | undefined): TokenParams {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'the request body must be a JSON object or application/x-www-form-urlencoded parameters');
  }
  const b = body as Record<string, unknown>;
  const grantType = param(b, 'grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'parameter grant_type is required');
  if (grantType !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', `grant_type ${clientValue(grantType)} is not supported; use client_credentials`);
  }
  const audience = param(b, 'audience');
  const clientId = param(b, 'client_id');
  const clientSecret = param(b, 'client_secret');
  const scheme = /^\s*basic(?:\s+(.*))?$/i.exec(authorization ?? '');
  if (scheme) {
    if (clientSecret !== undefined) {
      throw new OAuthError('invalid_request', 'use one client authentication method: Basic or client_secret in the body, not both');
    }
    const basic = parseBasic(scheme[1] ?? '');
    if (clientId !== undefined && clientId !== basic.clientId) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header');
    }
    return checkCredentials({ grantType, audience, clientId: basic.clientId, clientSecret: basic.clientSecret, basic: true });
  }
  return checkCredentials({ grantType, audience, clientId, clientSecret, basic: false });
}

/**
 * Client ids and secrets are printable ASCII (RFC 6749 VSCHAR), at most 256 characters: anything else (NUL,
 * control characters, non-ASCII, lone surrogates) is invalid_client at once, before any lookup or hashing, so
 * credentials match byte for byte (see isCredentialText) and no such value ever reaches the database.
 */
function checkCredentials(params: TokenParams): TokenParams {
  for (const value of [params.clientId, params.clientSecret]) {
    if (value !== undefined && !isCredentialText(value)) {
      throw invalidClient(params.basic, 'client_id and client_secret must be 1 to 256 printable ASCII characters');
    }
  }
  return params;
}
