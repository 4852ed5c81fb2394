import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { GradingSubmissionDto } from '@dtp/domain';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { GradingAccepted, GradingService } from './grading.service';
import { DiamondIdParam } from '../common/path-ids';

@ApiTags('grading integration')
@Controller('v2/diamonds/:diamond_id')
export class GradingController {
  constructor(private readonly gradings: GradingService) {}

  @Post('grading')
  @HttpCode(201)
  @Roles('grading_lab')
  @ApiOperation({
    summary: "Submit the lab's grading of a diamond (becomes a selectable `source: gis` graded measurement on the platform)",
    description:
      '201 `{grading_id, diamond_id, status: "accepted"}`; 404 unknown; 410 deleted; 412 `{reason: "no_verified_validation", detail}` ' +
      'without an unexpired Verified validation of this diamond by the calling lab; 422 body errors.',
  })
  async submit(@DiamondIdParam() diamondId: string, @Body() body: GradingSubmissionDto, @CurrentCaller() caller: Caller): Promise<GradingAccepted> {
    return this.gradings.submit(diamondId, body, caller);
  }
}
