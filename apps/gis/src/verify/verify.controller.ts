import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { VerifyRequestDto, VerifyResponse } from '@dtp/domain';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { VerifyService } from './verify.service';
import { DiamondIdParam } from '../common/path-ids';

@ApiTags('grading integration')
@Controller('v2/diamonds/:diamond_id')
export class VerifyController {
  constructor(private readonly verifier: VerifyService) {}

  @Post('verify')
  @HttpCode(200)
  @Roles('grading_lab')
  @ApiOperation({
    summary: 'Verify a physical diamond against the registered polished diamond (carat weight and shape group)',
    description:
      '200 `{status: "success", is_locked}` or `{status: "failure", data}`; 404 `{detail}` unknown; 410 deleted; ' +
      '409 `{reason, detail}` ineligible; 422 body errors; 503 scan report not readable yet.',
  })
  async verify(@DiamondIdParam() diamondId: string, @Body() body: VerifyRequestDto, @CurrentCaller() caller: Caller): Promise<VerifyResponse> {
    return this.verifier.verify(diamondId, body, caller);
  }
}
