import { applyDecorators, Controller, Get, Header, Headers, Inject, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '@dtp/auth-guard';
import { DIAMOND_HISTORY_EXAMPLE, DiamondHistory, diamondIdField, DiamondV1, EXAMPLE_IDS, MessageErrorResponse, POLISHED_DIAMOND_EXAMPLE } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { DiamondsService } from './diamonds.service';
import { DiamondIdParam, FileHashParam } from './path-ids';

/** `inline; filename="..."` with an RFC 5987 UTF-8 form for names outside plain ASCII. */
function contentDisposition(filename: string | null): string {
  if (!filename) return 'inline';
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function etagMatches(header: string | undefined, hash: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === `"${hash}"`);
}

/**
 * `{diamond_id}`: out of format answers 404 like an unknown id; the HTTP layer answers 400 for a segment that is not
 * valid percent-encoded UTF-8 and 414 for one longer than the router takes (`{message, code}`).
 */
const ApiDiamondIdParam = () =>
  applyDecorators(
    ApiParam({
      name: 'diamond_id',
      description: 'Any diamond (locked or unlocked). Out of format answers 404 like an unknown id.',
      schema: diamondIdField() as object,
    }),
    ApiResponse({
      status: 400,
      description: 'A path segment that is not valid percent-encoded UTF-8 (answered by the HTTP layer: `{message, code}`).',
      type: MessageErrorResponse,
    }),
    ApiResponse({
      status: 414,
      description: 'A path segment longer than the router takes (answered by the HTTP layer: `{message, code}`).',
      type: MessageErrorResponse,
    }),
  );

/** Errors every search operation can give besides its 404. */
const ERRORS = {
  403: 'The caller is not a non-participant (the search API is for authenticated non-participants only).',
  503: "The read model's database (or the token issuer's keys) cannot be reached right now; retry after `Retry-After` seconds.",
} as const;

const NOT_FOUND = 'Unknown or deleted diamond (or an id out of format): `{message}`.';

const CACHE_CONTROL = {
  description: '`private, max-age=0, must-revalidate`: cache it, but ask again (with If-None-Match) before using it.',
  schema: { type: 'string' },
};
const ETAG = {
  description: 'The quoted lowercase SHA-256 of the bytes (strong; the bytes of a hash never change).',
  schema: { type: 'string', pattern: '^"[0-9a-f]{64}"$' },
};

/** A scan report as search serves it (the format GIS reads; DESIGN.md "GIS"). */
const SCAN_REPORT_XML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<ScanReport format="dtp-scan-report">\n  <Shape>Round</Shape>\n  <EstimatedWeight>1.01</EstimatedWeight>\n' +
  '  <Measurements>\n    <GirdleAverage>6.43</GirdleAverage>\n    <TableAverage>3.68</TableAverage>\n    <TotalDepth>3.98</TotalDepth>\n' +
  '    <CrownAngleAverage>34.5</CrownAngleAverage>\n    <PavilionAngleAverage>40.8</PavilionAngleAverage>\n  </Measurements>\n</ScanReport>\n';

/**
 * Search API (spec "Search (authenticated, read-only)"): for authenticated non-participants only. Reads are
 * eventually consistent with platform (typically within a fraction of a second).
 */
@ApiTags('search')
@Roles('non_participant')
@Controller('v1/diamonds')
export class DiamondsController {
  constructor(@Inject(DiamondsService) private readonly diamonds: DiamondsService) {}

  @Get(':diamond_id')
  @ApiOperation({
    operationId: 'getDiamond',
    summary: 'The current record of a diamond (DiamondV1)',
    description: 'Any diamond, locked or unlocked, as platform last published it (eventually consistent: typically within a fraction of a second).',
  })
  @ApiDiamondIdParam()
  @ApiOkResponse({ description: 'The current DiamondV1 record.', type: DiamondV1, example: POLISHED_DIAMOND_EXAMPLE })
  @ApiErrors({ ...ERRORS, 404: NOT_FOUND })
  @Header('content-type', 'application/json; charset=utf-8')
  async get(@DiamondIdParam() diamondId: string): Promise<string> {
    // The stored JSON text of the DiamondV1 record, sent as it is (the content type Fastify gives an object).
    return this.diamonds.currentJson(diamondId);
  }

  @Get(':diamond_id/history')
  @ApiOperation({
    operationId: 'getDiamondHistory',
    summary: "The diamond's ancestors, nearest first",
    description: '`{diamond_id, ancestors: [parent, grandparent, ...]}`, each ancestor its current DiamondV1 record; empty for an original rough diamond.',
  })
  @ApiDiamondIdParam()
  @ApiOkResponse({ description: 'The diamond id and its ancestors, nearest first.', type: DiamondHistory, example: DIAMOND_HISTORY_EXAMPLE })
  @ApiErrors({ ...ERRORS, 404: NOT_FOUND })
  async history(@DiamondIdParam() diamondId: string): Promise<DiamondHistory> {
    return this.diamonds.history(diamondId);
  }

  @Get(':diamond_id/files/:file_hash')
  @ApiOperation({
    operationId: 'getDiamondFile',
    summary: 'The bytes of a file attached to the diamond',
    description:
      "Any file the diamond's current record lists (images, videos, the scan, scan reports, grading certificates, supplementary files), " +
      'with the media type it was uploaded with (`application/octet-stream` when none was given). The ETag is the quoted SHA-256; ' +
      'If-None-Match with it answers 304 without the bytes.',
  })
  @ApiDiamondIdParam()
  @ApiParam({
    name: 'file_hash',
    description: "The file ref's `hash`: the SHA-256 of the bytes, 64 hex digits (either case). Out of format answers 404 like an unknown hash.",
    schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$', example: EXAMPLE_IDS.scanReportHash },
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'ETags the client holds (`"<hash>"`, a comma-separated list, weak `W/` forms, or `*`): a match answers 304.',
    schema: { type: 'string', example: `"${EXAMPLE_IDS.scanReportHash}"` },
  })
  @ApiResponse({
    status: 200,
    description: "The file's bytes, with the media type it was uploaded with.",
    headers: {
      ETag: ETAG,
      'Content-Length': { description: 'Size in bytes.', schema: { type: 'integer', minimum: 0 } },
      'Content-Disposition': {
        description: "`inline`, with the file's name when it has one (`filename` and the RFC 5987 `filename*`).",
        schema: { type: 'string' },
      },
      'Cache-Control': CACHE_CONTROL,
      'X-Content-Type-Options': { description: '`nosniff`.', schema: { type: 'string' } },
    },
    content: {
      'application/xml': {
        schema: { type: 'string', description: 'A scan report (XML).' },
        example: SCAN_REPORT_XML,
      },
      '*/*': { schema: { type: 'string', format: 'binary', description: 'Any other file: its bytes, with the media type it was uploaded with.' } },
    },
  })
  @ApiResponse({ status: 304, description: "If-None-Match named this file's ETag: no body.", headers: { ETag: ETAG, 'Cache-Control': CACHE_CONTROL } })
  @ApiErrors({ ...ERRORS, 404: 'Unknown or deleted diamond, or a hash not attached to its current record (or out of format): `{message}`.' })
  async file(
    @DiamondIdParam() diamondId: string,
    @FileHashParam() fileHash: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const hash = fileHash.toLowerCase();
    const etag = `"${hash}"`;
    if (etagMatches(ifNoneMatch, hash)) {
      await this.diamonds.fileEntry(diamondId, hash);
      await reply.status(304).header('ETag', etag).header('Cache-Control', 'private, max-age=0, must-revalidate').send();
      return;
    }
    const file = await this.diamonds.file(diamondId, hash);
    await reply
      .status(200)
      .header('Content-Type', file.contentType)
      .header('Content-Length', String(file.size))
      .header('ETag', etag)
      .header('Cache-Control', 'private, max-age=0, must-revalidate')
      .header('Content-Disposition', contentDisposition(file.filename))
      .header('X-Content-Type-Options', 'nosniff')
      .send(file.stream);
  }
}
