import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import type { BlobStore } from '@dtp/blob-store';
import { FILE_KIND_VALUES, FileKind, invalidFields } from '@dtp/domain';
import type { PlatformConfig } from '../config';
import { BLOB_STORE, PLATFORM_CONFIG } from '../tokens';
import { AttachedRef, FilesService, UPLOAD_FIELDS } from './files.service';
import { receiveUpload } from './multipart-upload';
import { DiamondIdParam } from '../path-ids';

@ApiTags('files')
@Controller()
export class FilesController {
  constructor(
    private readonly files: FilesService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  @Post('diamonds/:diamond_id/files/:kind')
  @HttpCode(201)
  @Roles('producer', 'manufacturer', 'retailer')
  @ApiConsumes('multipart/form-data')
  @ApiOperation({
    summary: 'Attach a file to a diamond you hold',
    description:
      '`kind`: image, video, scan, scan_report, grading_certificate, supplementary. Multipart fields: `file` (required), ' +
      '`description`, and `image_type` for images. 201 with the file ref; 413 past the size limit; 403 when another participant holds it; 404 when no such diamond exists.',
  })
  async upload(
    @CurrentCaller() caller: Caller,
    @DiamondIdParam() diamondId: string,
    @Param('kind') kind: string,
    @Req() req: FastifyRequest,
  ): Promise<AttachedRef> {
    if (!(FILE_KIND_VALUES as readonly string[]).includes(kind)) {
      throw invalidFields([{ loc: ['path', 'kind'], msg: `kind must be one of: ${FILE_KIND_VALUES.join(', ')}`, type: 'enum' }]);
    }
    const fileKind = kind as FileKind;
    const announced = Number(req.headers['content-length']);
    await this.files.assertCanUpload(caller, diamondId, Number.isFinite(announced) && announced > 0 ? announced : null);
    const upload = await receiveUpload(req, this.blobs, { limitBytes: this.config.FILE_SIZE_LIMIT_BYTES, fields: UPLOAD_FIELDS[fileKind] });
    return this.files.attach(caller, diamondId, fileKind, upload);
  }
}
