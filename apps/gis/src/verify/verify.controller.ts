import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { VERIFY_RESPONSE_SCHEMA, VerifyFailure, VerifyRequestDto, VerifyResponse, VerifySuccess } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { VerifyService } from './verify.service';
import { DiamondIdParam } from '../common/path-ids';
import { ApiDiamondIdParam, ApiGisDeleted, ApiGisIneligible, ApiGisNotFound, ApiGisUnavailable } from '../common/openapi';

@ApiTags('grading integration')
@ApiExtraModels(VerifySuccess, VerifyFailure)
@Controller('v2/diamonds/:diamond_id')
export class VerifyController {
  constructor(private readonly verifier: VerifyService) {}

  @Post('verify')
  @HttpCode(200)
  @Roles('grading_lab')
  @ApiOperation({
    operationId: 'verifyDiamond',
    summary: 'Verify a physical diamond against the registered polished diamond (carat weight and shape group)',
    description:
      'Compares the carat weight the lab measured with the declared polished carats (tolerance 0.02, reported as ' +
      '"0.020") and the shape group with the declared shape\'s group (group `Other` is accepted). The diamond must be ' +
      'polished with a supported scan report. Every attempt is recorded; a successful verify lets this lab validate ' +
      'the diamond. Grading labs only.',
  })
  @ApiDiamondIdParam()
  @ApiBody({ type: VerifyRequestDto, examples: { verify: { summary: 'A round diamond of 1.02 ct', value: { carat_weight: 1.02, shape_group: 'Round' } } } })
  @ApiOkResponse({
    description: 'Processed: `status` `success` (both match) or `failure` (with what was compared).',
    schema: VERIFY_RESPONSE_SCHEMA,
    examples: {
      success: { summary: 'Both match', value: { status: 'success', is_locked: true } },
      failure: {
        summary: 'The carat weight is out of tolerance',
        value: {
          status: 'failure',
          data: {
            carat_weight: { matched: false, known_value: '1.02', given_value: '1.1', tolerance: '0.020' },
            shape_group: { matched: true, known_value: 'Round', given_value: 'Round' },
          },
        },
      },
    },
  })
  @ApiGisNotFound('Unknown diamond (or an id out of format): `{"detail": "diamond not found"}`.')
  @ApiGisIneligible(
    'The diamond is not eligible: `diamond_is_not_polished`, `diamond_has_no_scan_report`, `scan_report_not_supported` ' +
      '(detail `{generic_error}`), `scan_report_parse_error` (detail: field name -> problems).',
  )
  @ApiGisDeleted()
  @ApiErrors({
    403: 'The caller is not a grading lab.',
    413: 'The body is larger than the limit (1 MiB).',
    422: 'The body does not match VerifyRequest (every bad field named).',
  })
  @ApiGisUnavailable({ scanReport: true })
  async verify(@DiamondIdParam() diamondId: string, @Body() body: VerifyRequestDto, @CurrentCaller() caller: Caller): Promise<VerifyResponse> {
    return this.verifier.verify(diamondId, body, caller);
  }
}
