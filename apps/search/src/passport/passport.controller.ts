import type { ConsistencyAnswer, CustodyAnswer } from '@dtp/domain';
import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  CONSISTENCY_ANSWER_EXAMPLE,
  ConsistencyAnswerRecord,
  ConsistencyQueryDto,
  CUSTODY_ANSWER_EXAMPLE,
  CustodyAnswerRecord,
  DiamondV1,
  POLISHED_DIAMOND_EXAMPLE,
} from '@dtp/domain';
import { buildBrowserBundle } from '@dtp/verify/bundle';
import { ApiErrors, Public } from '@dtp/service-kit';
import { FAVICON_SVG, passportCsp, renderPassport } from './passport-page';
import { PassportService } from './passport.service';
import { SharePages } from './share-pages';

const SHARE_PARAM = {
  name: 'share_id',
  description: 'The share id from a passport link (`POST {base_url}/diamonds/{id}/share` on platform). Unknown, revoked, expired or out of format: 404.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', example: 'q5Jx0C3c9tq3p0C5rQyWZw' },
} as const;

const GONE = 'The link is unknown, revoked or expired, or its diamond was deleted (or the id is out of format): `{message}`.';
const UNAVAILABLE = "The read model's database cannot be reached right now; retry after `Retry-After` seconds.";

const HTML_EXAMPLE = '<!DOCTYPE html>\n<html lang="en">...<h1>Diamond passport</h1>...</html>\n';

/**
 * The public diamond passport (DESIGN.md "Provenance": passport): an HTML page per share link, with no token,
 * plus the JSON its "verified" badge checks in the browser. The HTML names participants by their public names
 * and carries no ids; the ids live only in the JSON (the custody answer and the record) the badge fetches.
 */
@ApiTags('passport')
@Public()
@Controller('passport')
export class PassportController {
  constructor(
    @Inject(PassportService) private readonly passports: PassportService,
    @Inject(SharePages) private readonly pages: SharePages,
  ) {}

  // Declared before `:share_id/...`; find-my-way prefers the static segment anyway.
  @Get('assets/verify.js')
  @ApiOperation({
    operationId: 'getPassportVerifyBundle',
    summary: "The browser bundle of @dtp/verify the passport's badge runs",
    description: 'One script that defines `DtpVerify` (`fetchAndVerify`, `verifyCustody`): anyone can run the same checks on any page. Built once per process.',
  })
  @ApiProduces('text/javascript')
  @ApiResponse({
    status: 200,
    description: 'The script.',
    headers: { 'Cache-Control': { description: '`public, max-age=300`.', schema: { type: 'string' } } },
    content: {
      'text/javascript': {
        schema: { type: 'string', description: 'A JavaScript (IIFE) script.' },
        example: '"use strict";(()=>{ ... globalThis.DtpVerify = ... })();',
      },
    },
  })
  async verifyBundle(@Res() reply: FastifyReply): Promise<void> {
    const script = await buildBrowserBundle();
    await reply.status(200).type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script);
  }

  @Get('assets/favicon.svg')
  @ApiOperation({ operationId: 'getPassportFavicon', summary: "The passport page's icon", description: 'An SVG image; the same for every passport.' })
  @ApiProduces('image/svg+xml')
  @ApiResponse({
    status: 200,
    description: 'The icon.',
    headers: { 'Cache-Control': { description: '`public, max-age=86400`.', schema: { type: 'string' } } },
    content: {
      'image/svg+xml': {
        schema: { type: 'string', description: 'An SVG document.' },
        example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">...</svg>',
      },
    },
  })
  async favicon(@Res() reply: FastifyReply): Promise<void> {
    await reply.status(200).type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON_SVG);
  }

  @Get(':share_id')
  @ApiOperation({
    operationId: 'getPassportPage',
    summary: 'The public passport page of a shared diamond (HTML, no token)',
    description:
      "Server-rendered HTML: photos (or a placeholder when none is public), the journey from the custody log with participants' public names, the active grading, " +
      'the GIS verification status, a QR code of the link, and a "verified" badge the page\'s script computes in the browser with @dtp/verify. ' +
      'Unknown, revoked or expired links answer a 404 HTML page.',
  })
  @ApiParam(SHARE_PARAM)
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'The passport page.',
    headers: {
      'Content-Security-Policy': {
        description: "Scripts from this service and the page's own hashed inline script; fetches to this service and the platform's keys.",
        schema: { type: 'string' },
      },
    },
    content: { 'text/html': { schema: { type: 'string', description: 'An HTML document.' }, example: HTML_EXAMPLE } },
  })
  @ApiResponse({
    status: 404,
    description: `${GONE.replace(': `{message}`', '')}: an HTML page saying so for a browser (\`Accept: text/html\`), \`{message}\` for any other client.`,
    content: {
      'text/html': { schema: { type: 'string', description: 'An HTML document.' } },
      'application/json': { schema: { $ref: '#/components/schemas/MessageErrorResponse' } },
    },
  })
  @ApiErrors({ 503: UNAVAILABLE })
  async page(@Param('share_id') shareId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const shareUrl = this.pages.shareUrl(request, shareId);
    await this.pages.send(request, reply, async () => renderPassport(await this.passports.view(shareId, shareUrl), this.pages.keysUrl), passportCsp);
  }

  @Get(':share_id/custody')
  @ApiOperation({
    operationId: 'getPassportCustody',
    summary: 'The custody answer of a shared diamond (public JSON)',
    description:
      "What `GET /v1/diamonds/{id}/custody` answers for the shared diamond, without a token: the latest checkpoint and the diamond's entries with their inclusion proofs. The passport's badge verifies it.",
  })
  @ApiParam(SHARE_PARAM)
  @ApiOkResponse({
    description: 'The custody answer.',
    type: CustodyAnswerRecord,
    example: CUSTODY_ANSWER_EXAMPLE,
  })
  @ApiErrors({ 404: `${GONE} Also before the custody log has a checkpoint covering the diamond.`, 503: UNAVAILABLE })
  async custody(@Param('share_id') shareId: string): Promise<CustodyAnswer> {
    return this.passports.custodyAnswer(shareId);
  }

  @Get(':share_id/consistency')
  @ApiOperation({
    operationId: 'getPassportConsistency',
    summary: 'A consistency proof of the custody log (public JSON)',
    description:
      'What `GET /v1/custody/consistency` answers, without a token, for anyone holding a live link: the badge remembers the last checkpoint it verified ' +
      "(in the browser's local storage) and checks on the next visit that the log only grew since (a rolled-back log cannot prove it).",
  })
  @ApiParam(SHARE_PARAM)
  @ApiOkResponse({ description: 'The proof.', type: ConsistencyAnswerRecord, example: CONSISTENCY_ANSWER_EXAMPLE })
  @ApiErrors({
    404: GONE,
    422: '`from` or `to` missing, not an integer, below 1, `from` greater than `to`, or `to` beyond the latest checkpoint: `{detail}` names the field.',
    503: UNAVAILABLE,
  })
  async consistency(@Param('share_id') shareId: string, @Query() query: ConsistencyQueryDto): Promise<ConsistencyAnswer> {
    return this.passports.consistency(shareId, query.from, query.to);
  }

  @Get(':share_id/record')
  @ApiOperation({
    operationId: 'getPassportRecord',
    summary: 'The current record of a shared diamond (public JSON)',
    description:
      'The DiamondV1 search holds for the shared diamond (what `GET /v1/diamonds/{id}` answers), without a token: the badge checks its hash against the custody log.',
  })
  @ApiParam(SHARE_PARAM)
  @ApiOkResponse({ description: 'The current DiamondV1 record.', type: DiamondV1, example: POLISHED_DIAMOND_EXAMPLE })
  @ApiErrors({ 404: GONE, 503: UNAVAILABLE })
  async record(@Param('share_id') shareId: string): Promise<DiamondV1> {
    return this.passports.record(shareId);
  }

  @Get(':share_id/photos/:n')
  @ApiOperation({
    operationId: 'getPassportPhoto',
    summary: 'A photo of a shared diamond (no token)',
    description:
      "The `n`th (from 1) raster image (JPEG, PNG, WebP, GIF, AVIF) of the record's `polished.images`, as the page shows it; other image files are not served.",
  })
  @ApiParam(SHARE_PARAM)
  @ApiParam({ name: 'n', description: "The photo's position on the page, from 1.", schema: { type: 'integer', minimum: 1, example: 1 } })
  @ApiResponse({
    status: 200,
    description: "The image's bytes.",
    headers: { 'Cache-Control': { description: '`no-store`: a revoked link stops showing it at once.', schema: { type: 'string' } } },
    content: { 'image/*': { schema: { type: 'string', format: 'binary', description: 'The image.' }, example: '(bytes)' } },
  })
  @ApiErrors({ 404: `${GONE} Or no such photo.`, 503: UNAVAILABLE })
  async photo(@Param('share_id') shareId: string, @Param('n') n: string, @Res() reply: FastifyReply): Promise<void> {
    const photo = await this.passports.photo(shareId, /^[1-9][0-9]{0,3}$/.test(n) ? Number(n) : 0);
    await reply
      .status(200)
      .header('content-type', photo.contentType)
      .header('content-length', String(photo.size))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(photo.stream);
  }
}
