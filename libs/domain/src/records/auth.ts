import type { Role } from '../enums/participant';

/** `POST {auth_url}/oauth/token` success. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds. */
  expires_in: number;
}

export const OAUTH_ERROR_CODES = [
  'invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type',
  'invalid_scope', 'invalid_target',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** RFC 6749 5.2 error body. */
export interface TokenErrorResponse {
  error: OAuthErrorCode;
  error_description?: string;
}

/** JWT access token claims (RFC 9068 plus ours). */
export interface AccessTokenClaims {
  iss: string;
  /** The client_id. */
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  jti: string;
  client_id?: string;
  participant_id: string;
  role: Role;
}

/** `POST {auth_url}/admin/participants` 201; the secret is shown only here. */
export interface OnboardParticipantResponse {
  participant_id: string;
  client_id: string;
  client_secret: string;
  role: Role;
}

/** The authenticated caller, as services take it from a verified token. */
export interface Caller {
  participant_id: string;
  role: Role;
  client_id: string;
}
