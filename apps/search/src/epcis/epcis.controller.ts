import { Controller, Get, Inject, NotFoundException, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '@dtp/auth-guard';
import { CUSTODY_ANSWER_EXAMPLE, EpcisDocumentRecord } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiSearchDiamondIdParam, SEARCH_ERRORS } from '../custody/custody.controller';
import { DiamondIdParam } from '../diamonds/path-ids';
import { EpcisDocument, toEpcisDocument } from './epcis.mapper';
import { EpcisService } from './epcis.service';

/** The media type of the export: JSON-LD (EPCIS 2.0 JSON documents are JSON-LD). */
export const EPCIS_MEDIA_TYPE = 'application/ld+json';

const EXAMPLE = toEpcisDocument({ base: 'https://platform.example.com', entries: CUSTODY_ANSWER_EXAMPLE.entries, creationDate: '2024-05-03T14:20:00.000Z' });

/** GS1 EPCIS 2.0 export of a diamond's journey (DESIGN.md "Provenance"). */
@ApiTags('custody')
@ApiExtraModels(EpcisDocumentRecord)
@Roles('non_participant')
@Controller('v1/diamonds')
export class EpcisController {
  constructor(@Inject(EpcisService) private readonly epcis: EpcisService) {}

  @Get(':diamond_id/epcis')
  @ApiOperation({
    operationId: 'getDiamondEpcis',
    summary: "The diamond's journey as a GS1 EPCIS 2.0 document",
    description:
      'An `EPCISDocument` (JSON-LD, `application/ld+json`) with one event per custody entry of the chain `GET /v1/diamonds/{diamond_id}/custody` serves: ' +
      'registration `ObjectEvent ADD commissioning/active`; shipping `OBSERVE shipping/in_transit` and acceptance `receiving/in_progress`, rejection ' +
      '`receiving/returned`, with source and destination `owning_party`; polish and split `TransformationEvent commissioning` (input the parent, outputs the ' +
      'children); destruction `DELETE destroying/destroyed`; deletion `DELETE decommissioning/inactive`; grading `OBSERVE inspecting` with the active ' +
      'grading under `dtp:grading`; other changes `OBSERVE other`. Every event carries `dtp:entryHash` and `dtp:leafIndex`. Ids are HTTP URIs under the ' +
      "platform's public base address (`{base}/id/diamond/{id}`, `{base}/id/participant/{id}`); the `dtp` prefix is `{base}/ns/epcis#`.",
  })
  @ApiSearchDiamondIdParam()
  @ApiResponse({
    status: 200,
    description: "The EPCIS 2.0 document (valid against GS1's EPCIS 2.0 JSON Schema).",
    content: { [EPCIS_MEDIA_TYPE]: { schema: { $ref: getSchemaPath(EpcisDocumentRecord) }, example: EXAMPLE } },
  })
  @ApiErrors({
    ...SEARCH_ERRORS,
    404: 'No custody entry of this diamond is covered by a checkpoint yet (or an unknown id, or one out of format): `{message}`.',
  })
  async document(@DiamondIdParam() diamondId: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<EpcisDocument> {
    const doc = await this.epcis.documentFor(diamondId);
    if (!doc) throw new NotFoundException({ message: `no custody entries of diamond ${diamondId}` });
    // Only the document is JSON-LD; errors stay application/json like every other answer.
    void reply.header('Content-Type', EPCIS_MEDIA_TYPE);
    return doc;
  }
}
