import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ROLE_VALUES, Role } from '../enums/participant';
import { UUID_PATTERN } from '../rules/ids';

/*
 * Auth's answers (DESIGN.md "Authentication and roles"). Classes so that the OpenAPI document describes them
 * (object literals stay assignable: no private members).
 */

const ROLE = { enum: ROLE_VALUES, enumName: 'Role' } as const;
const PARTICIPANT_ID = { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, example: '3f1c2f8e-1111-4222-8333-444455556666' } as const;
/** Client ids are printable ASCII; the service issues `dtp_` and 22 base64url characters. */
const CLIENT_ID = { type: 'string', minLength: 1, maxLength: 256, example: 'dtp_q3v9Kx2LmN8pR4sT6uW1yA' } as const;
const DATE_TIME = { type: 'string', format: 'date-time', example: '2025-03-04T10:00:00.000Z' } as const;

/** `POST {auth_url}/oauth/token` success. */
export class TokenResponse {
  @ApiProperty({
    description:
      'A signed JWT (RFC 9068, `typ: at+jwt`, ES256, `kid` in the header) with iss, sub = client_id, aud = the requested ' +
      'audience, exp, iat, nbf, jti, client_id, participant_id, role and name.',
    pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
    example: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6IjQ4dTIifQ.eyJzdWIiOiJkdHBfcTN2OUt4MkxtTjhwUjRzVDZ1VzF5QSJ9.c2lnbmF0dXJl',
  })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  token_type!: 'Bearer';

  /** Seconds. */
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Seconds until the token expires.', example: 3600 })
  expires_in!: number;
}

export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** `error` of a token endpoint answer: the RFC 6749 5.2 codes, RFC 8707's invalid_target, and the limits' 429. */
export const TOKEN_ERROR_CODES = [...OAUTH_ERROR_CODES, 'too_many_requests'] as const;
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number];

/** RFC 6749 5.2: `error_description` holds only `%x20-21 / %x23-5B / %x5D-7E` (printable ASCII minus `"` and `\`). */
export const OAUTH_ERROR_DESCRIPTION_PATTERN = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

/** RFC 6749 5.2 error body (every error of the token endpoint but a 5xx). */
@ApiSchema({
  description:
    'RFC 6749 5.2 error: 400 `invalid_request`, `unsupported_grant_type`, `invalid_target`; 401 `invalid_client`; ' +
    '413 `invalid_request`; 429 `too_many_requests`.',
})
export class TokenErrorResponse {
  @ApiProperty({ enum: TOKEN_ERROR_CODES, enumName: 'TokenErrorCode', example: 'invalid_request' })
  error!: TokenErrorCode;

  @ApiProperty({
    description: 'For people; printable ASCII without `"` and `\\` (RFC 6749 5.2), at most 300 characters.',
    maxLength: 300,
    pattern: OAUTH_ERROR_DESCRIPTION_PATTERN.source,
    example: 'parameter audience is required',
  })
  error_description!: string;
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

/** One public key of the JWKS (RFC 7517): a P-256 key for ES256 signatures. */
export class Jwk {
  @ApiProperty({ enum: ['EC'], example: 'EC' })
  kty!: 'EC';

  @ApiProperty({ enum: ['P-256'], example: 'P-256' })
  crv!: 'P-256';

  @ApiProperty({ description: 'The x coordinate, base64url.', pattern: '^[A-Za-z0-9_-]+$', example: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU' })
  x!: string;

  @ApiProperty({ description: 'The y coordinate, base64url.', pattern: '^[A-Za-z0-9_-]+$', example: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' })
  y!: string;

  @ApiProperty({
    description: 'The key id (its RFC 7638 thumbprint), named in the header of the tokens it signed.',
    example: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
  })
  kid!: string;

  @ApiProperty({ enum: ['ES256'], example: 'ES256' })
  alg!: 'ES256';

  @ApiProperty({ enum: ['sig'], example: 'sig' })
  use!: 'sig';
}

/** `GET {auth_url}/.well-known/jwks.json`. */
export class JwksResponse {
  @ApiProperty({
    type: () => Jwk,
    isArray: true,
    description: 'The active signing key and the keys retired recently enough that tokens they signed may still be valid.',
  })
  keys!: Jwk[];
}

/** `POST {auth_url}/admin/participants` 201; the secret is shown only here. */
export class OnboardParticipantResponse {
  @ApiProperty(PARTICIPANT_ID)
  participant_id!: string;

  @ApiProperty(CLIENT_ID)
  client_id!: string;

  @ApiProperty({ type: 'string', description: 'Shown only in this answer; stored as a hash.', example: 'Zx8c1Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcVbNm1q2' })
  client_secret!: string;

  @ApiProperty({ ...ROLE, example: 'producer' })
  role!: Role;
}

/** The provenance a producer declared at onboarding. */
export class ParticipantProvenance {
  @ApiProperty({ example: 'Karowe' })
  name!: string;

  @ApiProperty({ example: 'mine' })
  type!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'ISO 3166-1 alpha-2.', pattern: '^[A-Z]{2}$', example: 'BW' })
  country_code?: string | null;
}

/** A client credential of a participant (never its secret). */
export class ParticipantClient {
  @ApiProperty(CLIENT_ID)
  client_id!: string;

  @ApiProperty(DATE_TIME)
  created_at!: string;

  @ApiProperty({ ...DATE_TIME, nullable: true, description: 'When the credential was revoked; null while it is valid.', example: null })
  revoked_at!: string | null;
}

/** `GET {auth_url}/admin/participants/{participant_id}`: a participant and its client ids (never secrets). */
@ApiExtraModels(ParticipantProvenance)
export class ParticipantView {
  @ApiProperty(PARTICIPANT_ID)
  participant_id!: string;

  @ApiProperty({ example: 'Karowe Mining' })
  name!: string;

  @ApiProperty({ ...ROLE, example: 'producer' })
  role!: Role;

  @ApiProperty({ description: 'Null when none was declared.', oneOf: [{ $ref: getSchemaPath(ParticipantProvenance) }, { type: 'null' }] })
  provenance!: ParticipantProvenance | null;

  @ApiProperty(DATE_TIME)
  created_at!: string;

  @ApiProperty({
    ...DATE_TIME,
    description: 'When its integration started (set at onboarding; default the onboarding time). Before 2023-06-30: it may use mutual TLS.',
  })
  integration_started_at!: string;

  @ApiProperty({ type: () => ParticipantClient, isArray: true })
  clients!: ParticipantClient[];
}

const X5T_S256 = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  description: 'RFC 8705 `x5t#S256`: base64url of the SHA-256 of the certificate (DER), the value of `cnf` in certificate-bound tokens.',
  example: 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2',
} as const;

/** A legacy participant's registered client certificate (mutual TLS). */
export class ClientCertificateView {
  @ApiProperty({ type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, example: '8d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21' })
  certificate_id!: string;

  @ApiProperty(X5T_S256)
  x5t_s256!: string;

  @ApiProperty({ type: 'string', description: "The certificate's subject, as OpenSSL prints it (one `key=value` a line).", example: 'CN=erp.karowe.example' })
  subject!: string;

  @ApiProperty({ ...DATE_TIME, description: "The certificate's notAfter: it is refused from then on." })
  not_after!: string;
}

/** `GET {auth_url}/admin/participants/{participant_id}/certificates`: its registered (not removed) certificates. */
export class ClientCertificateList {
  @ApiProperty({ type: () => ClientCertificateView, isArray: true })
  certificates!: ClientCertificateView[];
}

/** The authenticated caller, as services take it from a verified token. */
export interface Caller {
  participant_id: string;
  role: Role;
  client_id: string;
}

/** `GET {auth_url}/.well-known/oauth-authorization-server`: RFC 8414 metadata (with RFC 8705's mutual TLS members). */
export class AuthorizationServerMetadata {
  @ApiProperty({ type: 'string', format: 'uri', description: 'The `iss` of every token ({auth_url}).', example: 'http://localhost:3001' })
  issuer!: string;

  @ApiProperty({ type: 'string', format: 'uri', example: 'http://localhost:3001/oauth/token' })
  token_endpoint!: string;

  @ApiProperty({ type: 'string', format: 'uri', example: 'http://localhost:3001/.well-known/jwks.json' })
  jwks_uri!: string;

  @ApiProperty({ type: 'string', isArray: true, description: 'Empty: there is no authorization endpoint (client credentials only).', example: [] })
  response_types_supported!: string[];

  @ApiProperty({ type: 'string', isArray: true, example: ['client_credentials'] })
  grant_types_supported!: string[];

  @ApiProperty({
    type: 'string',
    isArray: true,
    description: '`self_signed_tls_client_auth` (RFC 8705 2.2): `client_id` and no secret, over mutual TLS with a registered certificate.',
    example: ['client_secret_post', 'client_secret_basic', 'self_signed_tls_client_auth'],
  })
  token_endpoint_auth_methods_supported!: string[];

  @ApiProperty({ type: 'boolean', description: 'RFC 8705 3.3: tokens issued over mutual TLS are bound to the certificate (`cnf`).', example: true })
  tls_client_certificate_bound_access_tokens!: boolean;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', format: 'uri' },
    description: 'RFC 8705 5: where the endpoints are reached over mutual TLS (AUTH_MTLS_URL), when that is another address.',
    example: { token_endpoint: 'https://localhost:3441/oauth/token' },
  })
  mtls_endpoint_aliases?: Record<string, string>;
}
