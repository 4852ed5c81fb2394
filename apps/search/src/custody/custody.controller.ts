import { applyDecorators, Controller, Get, Inject, NotFoundException, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Roles } from '@dtp/auth-guard';
import {
  CONSISTENCY_ANSWER_EXAMPLE,
  ConsistencyAnswer,
  ConsistencyAnswerRecord,
  ConsistencyQueryDto,
  CUSTODY_ANSWER_EXAMPLE,
  CUSTODY_CHECKPOINT_EXAMPLE,
  CustodyAnswer,
  CustodyAnswerRecord,
  CustodyCheckpoint,
  CustodyCheckpointRecord,
  diamondIdField,
  MessageErrorResponse,
} from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { DiamondIdParam } from '../diamonds/path-ids';
import { CustodyQueries } from './custody.queries';

/** Errors every search operation can give besides its own. */
export const SEARCH_ERRORS = {
  403: 'The caller is not a non-participant (the search API is for authenticated non-participants only).',
  503: "The read model's database (or the token issuer's keys) cannot be reached right now; retry after `Retry-After` seconds.",
} as const;

/** `{diamond_id}` as search's other diamond routes take it. */
export const ApiSearchDiamondIdParam = () =>
  applyDecorators(
    ApiParam({
      name: 'diamond_id',
      description: 'Any diamond (also a deleted one: its log stays). Out of format answers 404 like an unknown id.',
      schema: diamondIdField() as object,
    }),
    ApiResponse({
      status: 400,
      description: 'A path segment that is not valid percent-encoded UTF-8 (answered by the HTTP layer: `{message, code}`).',
      type: MessageErrorResponse,
    }),
    ApiResponse({
      status: 414,
      description: 'A path segment longer than the router takes (answered by the HTTP layer: `{message, code}`).',
      type: MessageErrorResponse,
    }),
  );

const notFound = (message: string) => new NotFoundException({ message });

/**
 * The custody log as search holds it (DESIGN.md "Provenance"): a diamond's entries with inclusion proofs, the
 * latest checkpoint, consistency proofs. Served only against checkpoints whose root search's own tree reproduced.
 */
@ApiTags('custody')
@Roles('non_participant')
@Controller('v1')
export class CustodyController {
  constructor(@Inject(CustodyQueries) private readonly queries: CustodyQueries) {}

  @Get('diamonds/:diamond_id/custody')
  @ApiOperation({
    operationId: 'getDiamondCustody',
    summary: "The diamond's custody entries with inclusion proofs",
    description:
      "The latest checkpoint search serves, and the diamond's custody entries with the ancestor entries its chain links to " +
      "(a child's first entry names its parent's entry; the parent's entries up to that one are included, and so on to the mine), " +
      'oldest first, each with its RFC 9162 inclusion proof against that checkpoint. Entries newer than the checkpoint are left out until the next one.',
  })
  @ApiSearchDiamondIdParam()
  @ApiOkResponse({ description: 'The checkpoint and the proven entries.', type: CustodyAnswerRecord, example: CUSTODY_ANSWER_EXAMPLE })
  @ApiErrors({
    ...SEARCH_ERRORS,
    404: 'No custody entry of this diamond is covered by a checkpoint yet (or an unknown id, or one out of format): `{message}`.',
  })
  async custody(@DiamondIdParam() diamondId: string): Promise<CustodyAnswer> {
    const answer = await this.queries.answerFor(diamondId);
    if (!answer) throw notFound(`no custody entries of diamond ${diamondId}`);
    return answer;
  }

  @Get('custody/checkpoints/latest')
  @ApiOperation({
    operationId: 'getLatestCustodyCheckpoint',
    summary: 'The latest signed custody checkpoint',
    description: "The newest checkpoint whose root search's own tree reproduced (a checkpoint that differs is never served).",
  })
  @ApiOkResponse({ description: 'The signed tree head.', type: CustodyCheckpointRecord, example: CUSTODY_CHECKPOINT_EXAMPLE })
  @ApiErrors({ ...SEARCH_ERRORS, 404: 'No checkpoint yet: `{message}`.' })
  async latest(): Promise<CustodyCheckpoint> {
    const cp = await this.queries.latestCheckpoint();
    if (!cp) throw notFound('no custody checkpoint yet');
    return cp;
  }

  @Get('custody/consistency')
  @ApiOperation({
    operationId: 'getCustodyConsistencyProof',
    summary: 'Consistency proof between two tree sizes',
    description:
      "RFC 9162 2.1.4 proof that the tree of `from` leaves is a prefix of the tree of `to` leaves (1 <= from <= to <= the latest checkpoint's `tree_size`).",
  })
  @ApiOkResponse({ description: 'The proof.', type: ConsistencyAnswerRecord, example: CONSISTENCY_ANSWER_EXAMPLE })
  @ApiErrors({
    ...SEARCH_ERRORS,
    422: '`from` or `to` missing, not an integer, below 1, `from` greater than `to`, or `to` beyond the latest checkpoint: `{detail}` names the field.',
  })
  async consistency(@Query() query: ConsistencyQueryDto): Promise<ConsistencyAnswer> {
    return this.queries.consistency(query.from, query.to);
  }
}
