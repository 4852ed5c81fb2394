import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { VALIDATE_JSON_EXAMPLE, ValidateAccepted, ValidateJsonRequestDto, ValidationHistoryEntry, ValidationPoll } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { ValidationService } from './validation.service';
import { REQUEST_NOT_FOUND } from '../common/errors';
import { DiamondIdParam, RequestIdParam } from '../common/path-ids';
import {
  ApiDiamondIdParam,
  ApiGisDeleted,
  ApiGisIneligible,
  ApiGisNotFound,
  ApiGisPrerequisite,
  ApiGisUnavailable,
  ApiRequestIdParam,
} from '../common/openapi';

const DIAMOND_ID = '01jd3k8m5n2p7r4t6v9w1x3y5z';
const REQUEST_ID = '7b2e4c1a-9f3d-4e6b-8a5c-2d1f0e9b8a7c';
const VERIFIED_DESCRIPTION = 'shape group and the four required measurements are within tolerance';
const FORBIDDEN = 'The caller is not a grading lab.';

const numeric = (platform: string, lab: string, difference: string, tolerance: string) => ({
  validation_result: 'matched',
  platform_value: platform,
  lab_value: lab,
  difference,
  tolerance,
});

@ApiTags('grading integration')
@Roles('grading_lab')
@Controller('v2/diamonds/:diamond_id')
export class ValidationController {
  constructor(private readonly validations: ValidationService) {}

  @Post('validate-json')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'validateDiamond',
    summary: 'Validate measurements against the scan report (asynchronous)',
    description:
      "Queues a comparison of the lab's measurements with the diamond's scan report and answers 202 Pending with " +
      'the address to poll. Needs a successful verify of this diamond by the calling lab. `Verified` when the shape ' +
      'group and the four required measurements are within tolerance, else `Unverifiable`; the optional angles are ' +
      'reported and never change the status. Grading labs only.',
  })
  @ApiDiamondIdParam()
  @ApiBody({
    type: ValidateJsonRequestDto,
    examples: {
      validate: {
        summary: 'Measurements of a round diamond, with both angles',
        value: VALIDATE_JSON_EXAMPLE,
      },
    },
  })
  @ApiAcceptedResponse({
    description: 'Accepted for processing: poll `status_url`.',
    type: ValidateAccepted,
    example: {
      diamond_id: DIAMOND_ID,
      request_id: REQUEST_ID,
      status_url: `https://gis.example.com/v2/diamonds/${DIAMOND_ID}/validate/${REQUEST_ID}`,
      verification_status: 'Pending',
    },
  })
  @ApiGisNotFound('Unknown diamond (or an id out of format): `{"detail": "diamond not found"}`.')
  @ApiGisIneligible(
    'The diamond is not eligible: `diamond_is_not_polished`, `diamond_has_no_scan_report`, `scan_report_not_supported`, ' +
      '`scan_report_parse_error`, or `shape_not_supported` (its shape has no supported shape group).',
  )
  @ApiGisDeleted()
  @ApiGisPrerequisite('`no_successful_verify`: the calling lab has no successful verify of this diamond.')
  @ApiErrors({
    403: FORBIDDEN,
    413: 'The body is larger than the limit (1 MiB).',
    422: 'The body does not match ValidateJsonRequest, or `shape_group` is neither a shape nor a shape group (`type: "enum"`).',
  })
  @ApiGisUnavailable({ scanReport: true })
  async validate(@DiamondIdParam() diamondId: string, @Body() body: ValidateJsonRequestDto, @CurrentCaller() caller: Caller): Promise<ValidateAccepted> {
    return this.validations.accept(diamondId, body, caller);
  }

  /** Declared before `validate/:request_id` so `historic` is never taken for a request id. */
  @Get('validate/historic')
  @ApiOperation({
    operationId: 'validationHistory',
    summary: "The calling lab's answered or errored validation requests for a diamond, newest first, with `expired`",
    description: 'Pending requests are not listed. An empty list for a known diamond the lab has not validated. Grading labs only.',
  })
  @ApiDiamondIdParam()
  @ApiOkResponse({
    description: 'The requests, newest first.',
    type: ValidationHistoryEntry,
    isArray: true,
    example: [
      {
        diamond_id: DIAMOND_ID,
        request_id: REQUEST_ID,
        requested_at: '2025-03-04T10:00:00.000Z',
        verification_status: 'Verified',
        verification_description: VERIFIED_DESCRIPTION,
        verification_error: null,
        expired: false,
      },
    ],
  })
  @ApiGisNotFound('Unknown diamond (or an id out of format): `{"detail": "diamond not found"}`.')
  @ApiErrors({ 403: FORBIDDEN })
  @ApiGisUnavailable()
  async history(@DiamondIdParam() diamondId: string, @CurrentCaller() caller: Caller): Promise<ValidationHistoryEntry[]> {
    return this.validations.history(diamondId, caller);
  }

  @Get('validate/:request_id')
  @ApiOperation({
    operationId: 'pollValidation',
    summary: "Poll a validation request (the calling lab's own)",
    description:
      '`Pending` until the worker has answered, then `Verified` or `Unverifiable` with the compared parameters. ' +
      "Another lab's request, another diamond's, or an unknown one: 404. Grading labs only.",
  })
  @ApiDiamondIdParam()
  @ApiRequestIdParam()
  @ApiOkResponse({
    description: 'The request and, once answered, its result.',
    type: ValidationPoll,
    example: {
      diamond_id: DIAMOND_ID,
      request_id: REQUEST_ID,
      requested_at: '2025-03-04T10:00:00.000Z',
      verification_status: 'Verified',
      verification_description: VERIFIED_DESCRIPTION,
      verification_error: null,
      parameters: {
        crown_angle_avg_deg: numeric('34.6', '34.5', '0.1', '1.1'),
        estimated_weight_crt: numeric('1.01', '1.02', '0.01', '0.02'),
        girdle_avg_mm: numeric('7.5', '7.55', '0.05', '0.5'),
        pavilion_angle_avg_deg: numeric('40.8', '40.8', '0', '0.27'),
        table_avg_mm: numeric('3.7', '3.71', '0.01', '0.143'),
        total_depth_mm: numeric('4.19', '4.2', '0.01', '0.073'),
        shape: { validation_result: 'matched', platform_value: 'Round', lab_value: 'Round' },
      },
    },
  })
  @ApiGisNotFound('Unknown request, another lab\'s or another diamond\'s, or an id out of format: `{"detail": "validation request not found"}`.')
  @ApiErrors({ 403: FORBIDDEN })
  @ApiGisUnavailable()
  async poll(
    @DiamondIdParam(REQUEST_NOT_FOUND) diamondId: string,
    @RequestIdParam() requestId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<ValidationPoll> {
    return this.validations.poll(diamondId, requestId, caller);
  }
}
