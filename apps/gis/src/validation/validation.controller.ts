import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ValidateAccepted, ValidateJsonRequestDto, ValidationHistoryEntry, ValidationPoll } from '@dtp/domain';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { ValidationService } from './validation.service';
import { REQUEST_NOT_FOUND } from '../common/errors';
import { DiamondIdParam, RequestIdParam } from '../common/path-ids';

@ApiTags('grading integration')
@Roles('grading_lab')
@Controller('v2/diamonds/:diamond_id')
export class ValidationController {
  constructor(private readonly validations: ValidationService) {}

  @Post('validate-json')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Validate measurements against the scan report (asynchronous)',
    description:
      '202 `{diamond_id, request_id, status_url, verification_status: "Pending"}`; 404 `{detail}`; 410 deleted; 409 ' +
      '`{reason, detail}` ineligible (incl. `shape_not_supported`); 412 `{reason: "no_successful_verify", detail}` ' +
      'without a successful verify of this diamond by the calling lab; 422 body errors.',
  })
  async validate(
    @DiamondIdParam() diamondId: string,
    @Body() body: ValidateJsonRequestDto,
    @CurrentCaller() caller: Caller,
  ): Promise<ValidateAccepted> {
    return this.validations.accept(diamondId, body, caller);
  }

  /** Declared before `validate/:request_id` so `historic` is never taken for a request id. */
  @Get('validate/historic')
  @ApiOperation({ summary: "The calling lab's answered or errored validation requests for a diamond, newest first, with `expired`" })
  async history(@DiamondIdParam() diamondId: string, @CurrentCaller() caller: Caller): Promise<ValidationHistoryEntry[]> {
    return this.validations.history(diamondId, caller);
  }

  @Get('validate/:request_id')
  @ApiOperation({ summary: 'Poll a validation request (the calling lab\'s own); 404 `{detail}` for any other' })
  async poll(
    @DiamondIdParam(REQUEST_NOT_FOUND) diamondId: string,
    @RequestIdParam() requestId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<ValidationPoll> {
    return this.validations.poll(diamondId, requestId, caller);
  }
}
