import { Controller, Get, Header, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AuthorizationServerMetadata, JwksResponse, MessageErrorResponse, TokenErrorResponse, TokenRequestDto, TokenResponse } from '@dtp/domain';
import { Public, TakesFormBody } from '@dtp/service-kit';
import { SigningKeys } from '../keys/signing-keys';
import { TrustedProxies } from '@dtp/service-kit';
import { TOKEN_PATH } from './token-response.hook';
import { TokenService } from './token.service';
import type { AuthConfig } from '../config';
import { AUTH_CONFIG } from '../tokens';

/** Every answer of the token endpoint (RFC 6749 5.1); see token-response.hook.ts. */
const NO_STORE = {
  'Cache-Control': { description: '`no-store` (RFC 6749 5.1).', required: true, schema: { type: 'string', enum: ['no-store'] } },
  Pragma: { description: '`no-cache`.', required: true, schema: { type: 'string', enum: ['no-cache'] } },
};
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer', minimum: 1 } } };

const oauthError = (status: number, description: string, headers: Record<string, unknown> = {}) =>
  ApiResponse({ status, description, type: TokenErrorResponse, headers: { ...NO_STORE, ...headers } });

@ApiTags('oauth')
@Public()
@Controller()
export class TokenController {
  constructor(
    @Inject(TokenService) private readonly tokens: TokenService,
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(TrustedProxies) private readonly proxies: TrustedProxies,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  @Post(TOKEN_PATH)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'requestToken',
    summary: 'Client-credentials token (RFC 6749 4.4)',
    description:
      'A JSON or `application/x-www-form-urlencoded` body (the same parameters). The client authenticates with ' +
      '`client_id` and `client_secret` in the body, or with HTTP Basic (`Authorization: Basic ' +
      'base64(urlencode(client_id) ":" urlencode(client_secret))`, RFC 6749 2.3.1), not both; or, for a legacy (mutual TLS) ' +
      'participant, with `client_id` alone over mutual TLS with a registered client certificate (RFC 8705 ' +
      '`self_signed_tls_client_auth`). A token issued over mutual TLS carries `cnf.x5t#S256` and is accepted only on ' +
      'requests made with that certificate. `audience` names the API ' +
      'the token is for; use the token as `Authorization: Bearer <access_token>` (or the bare token). Every answer ' +
      'carries `Cache-Control: no-store`; errors follow RFC 6749 5.2. Limits per minute: requests per client address, ' +
      'failed authentications per client id and address (past it that client id is locked for that address until the ' +
      'minute is over), tokens per client id (429 with Retry-After).',
  })
  @TakesFormBody('application/json')
  @ApiBody({
    type: TokenRequestDto,
    examples: {
      platform: {
        summary: 'A token for the platform API',
        value: {
          grant_type: 'client_credentials',
          client_id: 'dtp_q3v9Kx2LmN8pR4sT6uW1yA',
          client_secret: 'Zx8c1Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcVbNm1q2',
          audience: 'http://localhost:3002',
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'The access token.',
    type: TokenResponse,
    headers: NO_STORE,
    example: {
      access_token: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6IjQ4dTIifQ.eyJzdWIiOiJkdHBfcTN2OUt4MkxtTjhwUjRzVDZ1VzF5QSJ9.c2lnbmF0dXJl',
      token_type: 'Bearer',
      expires_in: 3600,
    },
  })
  @oauthError(
    400,
    '`invalid_request`: a parameter missing (grant_type, audience), repeated or not a string, a body that is not an object ' +
      'or cannot be read (malformed JSON, another content type), two client authentication methods, or a body ' +
      '`client_id` that differs from the Basic one; `unsupported_grant_type`: a grant type other than ' +
      '`client_credentials`; `invalid_target`: an audience that is not an API of this platform, or one the role may not ' +
      'ask for.',
  )
  @oauthError(
    401,
    '`invalid_client`: no client authentication, unknown client, wrong or revoked secret, credentials that are not ' +
      '1 to 256 printable ASCII characters. With HTTP Basic, also a `WWW-Authenticate: Basic realm="dtp"` challenge.',
    { 'WWW-Authenticate': { description: '`Basic realm="dtp"` when the client used HTTP Basic.', schema: { type: 'string' } } },
  )
  @oauthError(413, '`invalid_request`: the body is larger than the limit (1 MiB).')
  @oauthError(
    429,
    '`too_many_requests`: too many requests from this address, too many failed authentications of this client id from ' +
      'this address, or too many tokens issued to this client id, in the current minute.',
    RETRY_AFTER,
  )
  @ApiResponse({
    status: 503,
    description: 'The database cannot be reached; retry later.',
    type: MessageErrorResponse,
    headers: { ...NO_STORE, ...RETRY_AFTER },
  })
  /** Cache-Control/Pragma headers and body-parse errors: see token-response.hook.ts. */
  async token(@Req() req: FastifyRequest): Promise<TokenResponse> {
    // The address resolved from the socket and the TRUSTED_PROXIES hops only (the same rule as the kit's req.ip).
    const address = this.proxies.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    return this.tokens.token(req.body, req.headers.authorization, address, req.clientCertificate);
  }

  @Get('.well-known/oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    operationId: 'getAuthorizationServerMetadata',
    summary: 'Authorization server metadata (RFC 8414), with mutual TLS (RFC 8705)',
    description: 'Where the token endpoint and the keys are, the grant and client authentication methods, certificate-bound tokens.',
  })
  @ApiOkResponse({
    description: 'The metadata.',
    type: AuthorizationServerMetadata,
    headers: { 'Cache-Control': { description: '`public, max-age=300`.', required: true, schema: { type: 'string' } } },
    example: {
      issuer: 'http://localhost:3001',
      token_endpoint: 'http://localhost:3001/oauth/token',
      jwks_uri: 'http://localhost:3001/.well-known/jwks.json',
      response_types_supported: [],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'self_signed_tls_client_auth'],
      tls_client_certificate_bound_access_tokens: true,
      mtls_endpoint_aliases: { token_endpoint: 'https://localhost:3441/oauth/token' },
    },
  })
  metadata(): AuthorizationServerMetadata {
    const issuer = this.config.AUTH_ISSUER.replace(/\/+$/, '');
    const mtls = this.config.AUTH_MTLS_URL?.replace(/\/+$/, '');
    return {
      issuer: this.config.AUTH_ISSUER,
      token_endpoint: `${issuer}${TOKEN_PATH}`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: [],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'self_signed_tls_client_auth'],
      tls_client_certificate_bound_access_tokens: true,
      ...(mtls && mtls !== issuer ? { mtls_endpoint_aliases: { token_endpoint: `${mtls}${TOKEN_PATH}` } } : {}),
    };
  }

  @Get('.well-known/jwks.json')
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({
    operationId: 'getJwks',
    summary: 'Public keys that verify access tokens (JWKS)',
    description:
      'The active ES256 signing key and recently retired ones (tokens they signed may still be valid). Services fetch ' +
      'it to verify tokens; pick the key by the `kid` in the token header.',
  })
  @ApiOkResponse({
    description: 'The key set (RFC 7517).',
    type: JwksResponse,
    headers: { 'Cache-Control': { description: '`public, max-age=60`.', required: true, schema: { type: 'string' } } },
    example: {
      keys: [
        {
          kty: 'EC',
          crv: 'P-256',
          x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
          y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
          kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
          alg: 'ES256',
          use: 'sig',
        },
      ],
    },
  })
  @ApiResponse({
    status: 503,
    description: 'The database cannot be reached; retry later.',
    type: MessageErrorResponse,
    headers: RETRY_AFTER,
  })
  jwks(): Promise<JwksResponse> {
    return this.keys.jwks() as Promise<JwksResponse>;
  }
}
