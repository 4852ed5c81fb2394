import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import {
  CreatePolishedDiamondDto,
  DestroyDiamondDto,
  DiamondV1,
  EXAMPLE_IDS,
  POLISHED_DIAMOND_EXAMPLE,
  ROUGH_DIAMOND_EXAMPLE,
  SplitDiamondDto,
  SplitDiamondResponse,
} from '@dtp/domain';
import { ApiErrors, ApiValidationPipe } from '@dtp/service-kit';
import { ApiDiamondIdParam, ApiPathErrors, Errors } from '../api-docs';
import { LifecycleService, SplitResult } from './lifecycle.service';
import { DiamondIdParam } from '../path-ids';

const pipe = new ApiValidationPipe();

const ROLE_OR_HOLDER = { description: 'A role other than manufacturer, or another participant holds the diamond', reasons: ['not_holder'] };

/** A polished child as polishing answers it: a new diamond, locked, held by the manufacturer, no files or grading yet. */
const NEW_POLISHED_EXAMPLE: DiamondV1 = {
  ...POLISHED_DIAMOND_EXAMPLE,
  unlock_status: 'locked',
  gis_status: null,
  producer_uuid: ROUGH_DIAMOND_EXAMPLE.producer_uuid,
  system_timestamp: '2024-06-01T08:30:02.511Z',
  polished: { carats: '1.01', shape: 'Round', clarity: 'VS1', colour: 'G', cut_grade: 'EX' },
  grading: null,
};

/** The parent after a move, as a rough diamond the manufacturer holds (it came through a shipment: unlocked). */
const parentAfter = (lifecycle_state: DiamondV1['lifecycle_state'], version_id: string): DiamondV1 => ({
  ...ROUGH_DIAMOND_EXAMPLE,
  unlock_status: 'unlocked',
  lifecycle_state,
  version_id,
  participant_timestamp: '2024-06-01T08:30:00Z',
  system_timestamp: '2024-06-01T08:30:02.511Z',
});

@ApiTags('lifecycle')
@Controller()
@Roles('manufacturer')
export class LifecycleController {
  constructor(private readonly lifecycle: LifecycleService) {}

  @Post('diamonds/polished/create')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createPolishedDiamond',
    summary: 'Create the polished diamond cut from a rough diamond you hold (manufacturer)',
    description:
      '200 with the new polished DiamondV1 (a child of the rough); the parent becomes `polished`. 403 unless you hold the parent, 404 when it does not exist; ' +
      '409 `in_transit`, `illegal_transition` (the parent is not rough), `polished_exceeds_parent_weight`.',
  })
  @ApiBody({
    type: CreatePolishedDiamondDto,
    examples: {
      roundBrilliant: {
        summary: 'A round brilliant cut from a rough diamond',
        value: {
          parent_diamond_id: EXAMPLE_IDS.roughDiamond,
          participant_id: 'CUT-2024-0815',
          participant_timestamp: '2024-06-01T08:30:00Z',
          polished: { carats: '1.01', shape: 'Round', clarity: 'VS1', colour: 'G', cut_grade: 'EX' },
        },
      },
    },
  })
  @ApiOkResponse({ description: 'The new polished diamond (a child of the rough).', type: DiamondV1, example: NEW_POLISHED_EXAMPLE })
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: 'No such parent diamond.',
    409: {
      description:
        'The parent is in transit, not a rough diamond, lighter than the polished diamond (`parent_carats`, `carats` in the body), or already has a child with this participant_id',
      reasons: ['in_transit', 'illegal_transition', 'polished_exceeds_parent_weight', 'diamond_not_unique'],
    },
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async polish(@CurrentCaller() caller: Caller, @Body() body: CreatePolishedDiamondDto): Promise<DiamondV1> {
    return this.lifecycle.polish(caller, body);
  }

  @Post('diamonds/:diamond_id/split')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'splitDiamond',
    summary: 'Split a rough diamond you hold into rough cuts (manufacturer)',
    description:
      '2 to 100 cuts. 200 `{parent, cuts}`; the parent becomes `split`, the cuts are rough children. 409 `illegal_transition`, ' +
      '`cuts_exceed_parent_weight` (the cuts together weigh more than the parent), `in_transit`; 403 unless you hold it; 404 when it does not exist.',
  })
  @ApiDiamondIdParam('A rough diamond you hold.')
  @ApiPathErrors()
  @ApiBody({
    type: SplitDiamondDto,
    examples: {
      twoCuts: {
        summary: 'A rough diamond sawn in two',
        value: {
          participant_timestamp: '2024-06-01T08:30:00Z',
          cuts: [
            { participant_id: 'SAWN-0815-A', rough: { carats: '1.40', colour: 'G' } },
            { participant_id: 'SAWN-0815-B', rough: { carats: '0.90', colour: 'G' } },
          ],
        },
      },
    },
  })
  @ApiOkResponse({
    description: 'The parent, now `split`, and the new cuts in request order.',
    type: SplitDiamondResponse,
    example: {
      parent: parentAfter('split', '01hz0a2b4c6d8e0f2g4h6j8k0n'),
      cuts: [
        {
          ...ROUGH_DIAMOND_EXAMPLE,
          diamond_id: '01hz0a2b4c6d8e0f2g4h6j8k1a',
          diamond_parent_id: EXAMPLE_IDS.roughDiamond,
          participant_id: 'SAWN-0815-A',
          participant_parent_id: 'STOCK-000123',
          rough: { carats: '1.40', colour: 'G' },
        },
        {
          ...ROUGH_DIAMOND_EXAMPLE,
          diamond_id: '01hz0a2b4c6d8e0f2g4h6j8k1b',
          diamond_parent_id: EXAMPLE_IDS.roughDiamond,
          participant_id: 'SAWN-0815-B',
          participant_parent_id: 'STOCK-000123',
          rough: { carats: '0.90', colour: 'G' },
        },
      ],
    },
  })
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: Errors.diamondNotFound,
    409: {
      description:
        "The diamond is in transit, not a rough diamond, lighter than its cuts together (`parent_carats`, `carats` in the body), or already has a child with a cut's participant_id",
      reasons: ['in_transit', 'illegal_transition', 'cuts_exceed_parent_weight', 'diamond_not_unique'],
    },
    413: Errors.bodyTooLarge,
    422: `${Errors.invalidBody} Fewer than 2 or more than 100 cuts, or cuts sharing a participant_id, are refused too.`,
    503: Errors.unavailable,
  })
  async split(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Body() body: SplitDiamondDto): Promise<SplitResult> {
    return this.lifecycle.split(caller, diamondId, body);
  }

  @Post('diamonds/:diamond_id/destroy')
  @HttpCode(200)
  @ApiBody({
    type: DestroyDiamondDto,
    required: false,
    examples: {
      lostInManufacturing: { summary: 'Lost in manufacturing, with the time it happened', value: { participant_timestamp: '2024-06-01T08:30:00Z' } },
    },
  })
  @ApiOperation({
    operationId: 'destroyDiamond',
    summary: 'Mark a rough diamond you hold as destroyed (lost in manufacturing; manufacturer)',
    description: 'Body optional: `{participant_timestamp}`. 200 with the record (`destroyed`); 409 `illegal_transition`, `in_transit`; 404.',
  })
  @ApiDiamondIdParam('A rough diamond you hold.')
  @ApiPathErrors()
  @ApiOkResponse({ description: 'The record, now `destroyed`.', type: DiamondV1, example: parentAfter('destroyed', '01hz0a2b4c6d8e0f2g4h6j8k0p') })
  @ApiErrors({
    403: ROLE_OR_HOLDER,
    404: Errors.diamondNotFound,
    409: { description: 'The diamond is in transit, or not a rough diamond', reasons: ['in_transit', 'illegal_transition'] },
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async destroy(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Req() req: FastifyRequest): Promise<DiamondV1> {
    // The body is optional: no body is an empty one; anything sent is validated like every body.
    const dto = (await pipe.transform(req.body ?? {}, { type: 'body', metatype: DestroyDiamondDto, data: '' })) as DestroyDiamondDto;
    return this.lifecycle.destroy(caller, diamondId, dto);
  }
}
