import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '@dtp/auth-guard';
import type { DiamondHistory, DiamondV1 } from '@dtp/domain';
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
 * Search API (spec "Search (authenticated, read-only)"): for authenticated non-participants only. Reads are
 * eventually consistent with platform (typically within a fraction of a second).
 */
@ApiTags('search')
@Roles('non_participant')
@Controller('v1/diamonds')
export class DiamondsController {
  constructor(@Inject(DiamondsService) private readonly diamonds: DiamondsService) {}

  @Get(':diamond_id')
  @ApiOperation({ summary: 'The current record of a diamond (DiamondV1)' })
  @ApiOkResponse({ description: 'The current DiamondV1 record' })
  @ApiNotFoundResponse({ description: '`{message}`: unknown or deleted diamond' })
  async get(@DiamondIdParam() diamondId: string): Promise<DiamondV1> {
    return this.diamonds.current(diamondId);
  }

  @Get(':diamond_id/history')
  @ApiOperation({ summary: "The diamond's ancestors, nearest first: {diamond_id, ancestors: [parent, grandparent, ...]}" })
  @ApiNotFoundResponse({ description: '`{message}`: unknown or deleted diamond' })
  async history(@DiamondIdParam() diamondId: string): Promise<DiamondHistory> {
    return this.diamonds.history(diamondId);
  }

  @Get(':diamond_id/files/:file_hash')
  @ApiOperation({ summary: 'The bytes of a file attached to the diamond; ETag is the quoted SHA-256 hash' })
  @ApiOkResponse({ description: 'The file bytes, with Content-Type, Content-Length and ETag' })
  @ApiNotFoundResponse({ description: '`{message}`: unknown or deleted diamond, or a hash not attached to it' })
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
