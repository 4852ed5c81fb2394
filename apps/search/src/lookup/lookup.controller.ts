import { Controller, Get, Header, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '@dtp/auth-guard';
import { LOOKUP_MAX_RESULTS, LookupAnswer, LookupQueryDto, POLISHED_DIAMOND_EXAMPLE } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { SEARCH_ERRORS } from '../custody/custody.controller';
import { LookupService } from './lookup.service';

/**
 * `GET /v1/lookup` (DESIGN.md "Looking a diamond up by what people hold"): a diamond found by what people who meet
 * it hold (its grading report number, girdle inscription or certificate number) rather than its diamond_id. For
 * authenticated non-participants, like the rest of search's `/v1`.
 */
@ApiTags('search')
@Roles('non_participant')
@Controller('v1/lookup')
export class LookupController {
  constructor(@Inject(LookupService) private readonly lookups: LookupService) {}

  @Get()
  @ApiOperation({
    operationId: 'lookupDiamonds',
    summary: 'Diamonds by grading report number, inscription or certificate number',
    description:
      'Exactly one of `grader_report_number` (optionally with `grading_lab`), `inscription` or `certificate_number`, compared exactly and ' +
      "case-insensitively with the diamond's ACTIVE graded measurement only (a deselected or replaced grading no longer finds it, once search " +
      `has the new record: typically within a fraction of a second). At most ${LOOKUP_MAX_RESULTS} diamonds, ordered by \`diamond_id\`; none: 200 with \`[]\`.`,
  })
  @ApiOkResponse({
    description: 'The matching diamonds (their current DiamondV1 records).',
    type: LookupAnswer,
    example: { results: [POLISHED_DIAMOND_EXAMPLE] },
  })
  @ApiErrors({
    ...SEARCH_ERRORS,
    422:
      'No criterion, several criteria, `grading_lab` without `grader_report_number`, an unknown `grading_lab`, a repeated parameter, an empty value or one ' +
      'longer than 256 characters, or an unknown parameter: `{detail}` names the members.',
  })
  @Header('content-type', 'application/json; charset=utf-8')
  async lookup(@Query() query: LookupQueryDto): Promise<string> {
    return this.lookups.lookupJson(query);
  }
}
