import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GradingAccepted, GradingSubmissionDto } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { GradingService } from './grading.service';
import { DiamondIdParam } from '../common/path-ids';
import { ApiDiamondIdParam, ApiGisDeleted, ApiGisNotFound, ApiGisPrerequisite, ApiGisUnavailable } from '../common/openapi';

@ApiTags('grading integration')
@Controller('v2/diamonds/:diamond_id')
export class GradingController {
  constructor(private readonly gradings: GradingService) {}

  @Post('grading')
  @HttpCode(201)
  @Roles('grading_lab')
  @ApiOperation({
    operationId: 'submitGrading',
    summary: "Submit the lab's grading of a diamond (becomes a selectable `source: gis` graded measurement on the platform)",
    description:
      'A flat body of GradingDataView members; unknown members are refused. Needs an unexpired `Verified` validation of ' +
      'this diamond by the calling lab. The grading reaches the platform as a `source: gis`, selectable graded ' +
      'measurement whose id is `grading_id`. Grading labs only.',
  })
  @ApiDiamondIdParam()
  @ApiBody({
    type: GradingSubmissionDto,
    examples: {
      grading: {
        summary: 'A GIA grading of a round brilliant',
        value: {
          grader_certificate_number: '2141438167',
          grader_report_number: '2141438167',
          grader_inscription_numbers: ['GIA 2141438167'],
          grading_lab: 'GIA',
          graded_date: '2025-03-04T10:00:00Z',
          carats: '1.02',
          shape: 'Round',
          colour: 'E',
          clarity: 'VS1',
          cut_grade: 'EX',
          polish_quality: 'EX',
          symmetry: 'VG',
          fluorescence_intensity: 'N',
          table_percent: '57',
          depth_percent: '61.8',
        },
      },
    },
  })
  @ApiCreatedResponse({
    description: "Stored; the platform adds it to the diamond's graded measurements.",
    type: GradingAccepted,
    example: { grading_id: 'c4a1f2e3-5b6d-4c7e-8f9a-0b1c2d3e4f5a', diamond_id: '01jd3k8m5n2p7r4t6v9w1x3y5z', status: 'accepted' },
  })
  @ApiGisNotFound('Unknown diamond (or an id out of format): `{"detail": "diamond not found"}`.')
  @ApiGisDeleted()
  @ApiGisPrerequisite('`no_verified_validation`: the calling lab has no unexpired `Verified` validation of this diamond.')
  @ApiErrors({
    403: 'The caller is not a grading lab.',
    413: 'The body is larger than the limit (1 MiB).',
    422: 'The body does not match GradingSubmission (every bad field named; unknown members refused).',
  })
  @ApiGisUnavailable()
  async submit(@DiamondIdParam() diamondId: string, @Body() body: GradingSubmissionDto, @CurrentCaller() caller: Caller): Promise<GradingAccepted> {
    return this.gradings.submit(diamondId, body, caller);
  }
}
