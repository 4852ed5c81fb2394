import { Controller, Get, Header, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { TokenResponse } from '@dtp/domain';
import { SigningKeys } from '../keys/signing-keys';
import { TrustedProxies } from './client-address';
import { TOKEN_PATH } from './token-response.hook';
import { TokenService } from './token.service';

@ApiTags('oauth')
@Controller()
export class TokenController {
  constructor(
    @Inject(TokenService) private readonly tokens: TokenService,
    @Inject(SigningKeys) private readonly keys: SigningKeys,
    @Inject(TrustedProxies) private readonly proxies: TrustedProxies,
  ) {}

  @Post(TOKEN_PATH)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Client-credentials token (RFC 6749 4.4)',
    description:
      'JSON or application/x-www-form-urlencoded body; client authentication by client_id/client_secret in the body or HTTP Basic. ' +
      'Errors follow RFC 6749 5.2: invalid_request, unsupported_grant_type, invalid_target (400), invalid_client (401), 429 when rate limited.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['grant_type', 'audience'],
      properties: {
        grant_type: { type: 'string', enum: ['client_credentials'] },
        client_id: { type: 'string' },
        client_secret: { type: 'string' },
        audience: { type: 'string', description: 'the API address: {base_url}, {search_url}/v1 or {gis_url}' },
      },
    },
  })
  @ApiResponse({ status: 200, description: '{access_token, token_type: "Bearer", expires_in}' })
  /** Cache-Control/Pragma headers and body-parse errors: see token-response.hook.ts. */
  async token(@Req() req: FastifyRequest): Promise<TokenResponse> {
    // The address resolved from the socket and the TRUSTED_PROXIES hops only (the same rule as the kit's req.ip).
    const address = this.proxies.clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    return this.tokens.token(req.body, req.headers.authorization, address);
  }

  @Get('.well-known/jwks.json')
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({ summary: 'Public keys that verify access tokens (JWKS)' })
  jwks() {
    return this.keys.jwks();
  }
}
