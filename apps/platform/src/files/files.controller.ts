import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiExtraModels, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import type { BlobStore } from '@dtp/blob-store';
import {
  ApiEnums,
  DESCRIPTION_MAX_LENGTH,
  FILE_KIND_VALUES,
  FileKind,
  FileRef,
  GRADING_CERTIFICATE_REF_EXAMPLE,
  GradingCertificateRef,
  ID_MAX_LENGTH,
  IMAGE_REF_EXAMPLE,
  ImageRef,
  invalidFields,
  SCAN_REPORT_REF_EXAMPLE,
} from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiDiamondIdParam, ApiPathErrors, Errors, PATH_400, SAME_SHAPE_PATHS } from '../api-docs';
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
    operationId: 'attachDiamondFile',
    summary: 'Attach a file to a diamond you hold',
    description:
      '`kind`: image, video, scan, scan_report, grading_certificate, supplementary. Multipart fields: `file` (required, exactly one), ' +
      '`description`, and `image_type` for images. The bytes are stored under their SHA-256 (search serves them), and the file ref ' +
      "goes into the record's `polished` section as a new version (re-uploading the same bytes updates its ref; a new scan replaces the " +
      'old one). 201 with the file ref: an ImageRef for images, a GradingCertificateRef for grading certificates, a FileRef otherwise.' +
      SAME_SHAPE_PATHS,
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiParam({ name: 'kind', description: 'What the file is; where its ref goes in `polished`.', ...ApiEnums.FileKind })
  @ApiBody({
    description: 'A multipart form: the file and its text fields (other fields are refused).',
    schema: {
      type: 'object',
      required: ['file'],
      additionalProperties: false,
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description: "The file; its name (last path segment, at most 256 characters) is kept as `filename`, its part's media type as `content_type`.",
        },
        description: { type: 'string', maxLength: DESCRIPTION_MAX_LENGTH, description: 'Free text.' },
        image_type: { type: 'string', maxLength: ID_MAX_LENGTH, description: 'Images only (free text).' },
      },
    },
  })
  @ApiPathErrors(`${PATH_400} Also a multipart body the form parser refuses before reading it (e.g. no boundary).`)
  @ApiExtraModels(FileRef, ImageRef, GradingCertificateRef)
  @ApiCreatedResponse({
    description: 'The file ref, as the record now lists it.',
    schema: { anyOf: [{ $ref: getSchemaPath(ImageRef) }, { $ref: getSchemaPath(GradingCertificateRef) }, { $ref: getSchemaPath(FileRef) }] },
    examples: {
      image: { summary: 'kind image: an ImageRef', value: IMAGE_REF_EXAMPLE },
      scanReport: { summary: 'kind scan_report: a FileRef', value: SCAN_REPORT_REF_EXAMPLE },
      gradingCertificate: { summary: 'kind grading_certificate: a GradingCertificateRef', value: GRADING_CERTIFICATE_REF_EXAMPLE },
    },
  })
  @ApiErrors({
    403: { description: 'A role other than producer, manufacturer or retailer, or another participant holds the diamond', reasons: ['not_holder'] },
    404: Errors.diamondNotFound,
    409: {
      description: `${Errors.inTransit}; or the diamond has the most files one may have, or your storage quota would be passed (limits in the body)`,
      reasons: ['in_transit', 'too_many_files', 'storage_quota_exceeded'],
    },
    413: { description: 'The file is larger than the upload limit (`limit_bytes` in the body; default 50 MiB)', reasons: ['file_too_large'] },
    422: 'An unknown `kind`, no `file`, more than one file, an unknown or repeated field, a text field too long or with control characters, or a body that is not multipart/form-data; named in `detail`.',
    503: Errors.unavailable,
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
