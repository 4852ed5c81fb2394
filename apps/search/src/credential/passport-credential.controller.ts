import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors, Public } from '@dtp/service-kit';
import { PassportService } from '../passport/passport.service';
import { CREDENTIAL_503, CREDENTIAL_DESCRIPTION, credentialResponse, sendCredential } from './credential.controller';
import { CredentialService } from './credential.service';

export const SHARE_PARAM = {
  name: 'share_id',
  description: 'The share id from a passport link (`POST {base_url}/diamonds/{id}/share` on platform). Unknown, revoked, expired or out of format: 404.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', example: 'q5Jx0C3c9tq3p0C5rQyWZw' },
} as const;

/** The origin credential of a shared diamond, without a token, for anyone holding a live passport link. */
@ApiTags('passport')
@Public()
@Controller('passport')
export class PassportCredentialController {
  constructor(
    @Inject(PassportService) private readonly passports: PassportService,
    @Inject(CredentialService) private readonly credentials: CredentialService,
  ) {}

  @Get(':share_id/credential')
  @ApiOperation({
    operationId: 'getPassportCredential',
    summary: 'The origin credential of a shared diamond (VC 2.0 as a JWT)',
    description: `What \`GET /v1/diamonds/{id}/credential\` answers for the shared diamond, without a token. ${CREDENTIAL_DESCRIPTION}`,
  })
  @ApiParam(SHARE_PARAM)
  @credentialResponse()
  @ApiErrors({ 404: 'The link is unknown, revoked or expired, or its diamond was deleted (or the id is out of format): `{message}`.', 503: CREDENTIAL_503 })
  async credential(@Param('share_id') shareId: string, @Res() reply: FastifyReply): Promise<void> {
    const diamondId = await this.passports.diamondOf(shareId);
    await sendCredential(reply, () => this.credentials.credentialJwt(diamondId));
  }
}
