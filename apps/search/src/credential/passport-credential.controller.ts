import { Controller, Get, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DiamondOriginCredential } from '@dtp/domain';
import { ApiErrors, Public } from '@dtp/service-kit';
import { SearchConfig } from '../config';
import { PassportService } from '../passport/passport.service';
import { SharePages } from '../passport/share-pages';
import { CREDENTIAL_409, CREDENTIAL_503, CREDENTIAL_DESCRIPTION, credentialResponse, sendCredential } from './credential.controller';
import { CredentialService } from './credential.service';
import { evidenceCsp, EvidenceView, renderEvidence } from './evidence-page';

export const SHARE_PARAM = {
  name: 'share_id',
  description: 'The share id from a passport link (`POST {base_url}/diamonds/{id}/share` on platform). Unknown, revoked, expired or out of format: 404.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', example: 'q5Jx0C3c9tq3p0C5rQyWZw' },
} as const;

const GONE = 'The link is unknown, revoked or expired, or its diamond was deleted (or the id is out of format)';

function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The origin credential of a shared diamond, without a token, for anyone holding a live passport link, and the
 * printable evidence page built on it (one A4: origin countries, the stone, the report number, the journey, the
 * credential verified in the browser, the link's QR code).
 */
@ApiTags('passport')
@Public()
@Controller('passport')
export class PassportCredentialController {
  constructor(
    @Inject(PassportService) private readonly passports: PassportService,
    @Inject(CredentialService) private readonly credentials: CredentialService,
    @Inject(SearchConfig) private readonly config: SearchConfig,
    @Inject(SharePages) private readonly pages: SharePages,
  ) {}

  @Get(':share_id/credential')
  @ApiOperation({
    operationId: 'getPassportCredential',
    summary: 'The origin credential of a shared diamond (VC 2.0 as a JWT)',
    description: `What \`GET /v1/diamonds/{id}/credential\` answers for the shared diamond, without a token. ${CREDENTIAL_DESCRIPTION}`,
  })
  @ApiParam(SHARE_PARAM)
  @credentialResponse()
  @ApiErrors({ 404: `${GONE}, or no custody entry of it covered by a checkpoint yet: \`{message}\`.`, 409: CREDENTIAL_409, 503: CREDENTIAL_503 })
  async credential(@Param('share_id') shareId: string, @Res() reply: FastifyReply): Promise<void> {
    const diamondId = await this.passports.diamondOf(shareId);
    await sendCredential(reply, () => this.credentials.credentialJwt(diamondId));
  }

  @Get(':share_id/evidence')
  @ApiOperation({
    operationId: 'getPassportEvidencePage',
    summary: 'A printable evidence of origin of a shared diamond (HTML, one A4 page, no token)',
    description:
      "For an importer's or customs officer's due-diligence file: the origin countries, the stone, the active report number, the journey with dates and " +
      "participants' public names, the link's QR code, and the origin credential (`/passport/{share_id}/credential`) verified in the browser with @dtp/verify " +
      "against the platform's published keys. Print CSS fits it on one A4 page. Unknown, revoked or expired links answer a 404 HTML page.",
  })
  @ApiParam(SHARE_PARAM)
  @ApiResponse({
    status: 200,
    description: 'The evidence page.',
    headers: {
      'Content-Security-Policy': {
        description: "Scripts from this service and the page's own hashed inline script; fetches to this service and the platform's keys.",
        schema: { type: 'string' },
      },
    },
    content: {
      'text/html': {
        schema: { type: 'string', description: 'An HTML document.' },
        example: '<!DOCTYPE html>\n<html lang="en">...<h1>Diamond origin evidence</h1>...',
      },
    },
  })
  @ApiResponse({
    status: 404,
    description: `${GONE}: an HTML page saying so for a browser (\`Accept: text/html\`), \`{message}\` for any other client.`,
    content: {
      'text/html': { schema: { type: 'string', description: 'An HTML document.' } },
      'application/json': { schema: { $ref: '#/components/schemas/MessageErrorResponse' } },
    },
  })
  @ApiErrors({ 503: "The read model's database cannot be reached right now; retry after `Retry-After` seconds." })
  async evidence(@Param('share_id') shareId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const shareUrl = this.pages.shareUrl(request, shareId);
    await this.pages.send(
      request,
      reply,
      async () => {
        const diamondId = await this.passports.diamondOf(shareId);
        const view = await this.passports.view(shareId, shareUrl);
        // The claims as the credential makes them; while the log catches up (or without a key) the page says "unknown".
        const credential: DiamondOriginCredential | null = await this.credentials.credential(diamondId).catch((err: unknown) => {
          if (err instanceof NotFoundException) throw err;
          return null;
        });
        const s = credential?.credentialSubject;
        const evidence: EvidenceView = {
          origins: (s?.origin_countries ?? []).map((code) => ({ code, name: countryName(code) })),
          originStatus: s ? s.origin_status : 'unknown',
          stone: view.facts.concat(view.origin ? [['Provenance', view.origin]] : []),
          reportNumber: s?.grader_report_number ?? null,
          gradingLab: s?.grading_lab ?? view.grading?.lab ?? null,
          journey: view.journey,
          shareUrl,
          issuer: this.config.PLATFORM_PUBLIC_URL.replace(/\/+$/, ''),
        };
        return renderEvidence(evidence, this.pages.keysUrl);
      },
      evidenceCsp,
    );
  }
}
