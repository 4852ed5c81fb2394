import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { CreatePolishedDiamondDto, DestroyDiamondDto, DiamondV1, SplitDiamondDto } from '@dtp/domain';
import { ApiValidationPipe } from '@dtp/service-kit';
import { LifecycleService, SplitResult } from './lifecycle.service';
import { DiamondIdParam } from '../path-ids';

const pipe = new ApiValidationPipe();

@ApiTags('lifecycle')
@Controller()
@Roles('manufacturer')
export class LifecycleController {
  constructor(private readonly lifecycle: LifecycleService) {}

  @Post('diamonds/polished/create')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create the polished diamond cut from a rough diamond you hold (manufacturer)',
    description:
      '200 with the new polished DiamondV1 (a child of the rough); the parent becomes `polished`. 403 unless you hold the parent, 404 when it does not exist; ' +
      '409 `in_transit`, `illegal_transition` (the parent is not rough), `polished_exceeds_parent_weight`.',
  })
  async polish(@CurrentCaller() caller: Caller, @Body() body: CreatePolishedDiamondDto): Promise<DiamondV1> {
    return this.lifecycle.polish(caller, body);
  }

  @Post('diamonds/:diamond_id/split')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Split a rough diamond you hold into rough cuts (manufacturer)',
    description:
      '2 to 100 cuts. 200 `{parent, cuts}`; the parent becomes `split`, the cuts are rough children. 409 `illegal_transition`, ' +
      '`cuts_exceed_parent_weight` (the cuts together weigh more than the parent), `in_transit`; 403 unless you hold it; 404 when it does not exist.',
  })
  async split(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Body() body: SplitDiamondDto): Promise<SplitResult> {
    return this.lifecycle.split(caller, diamondId, body);
  }

  @Post('diamonds/:diamond_id/destroy')
  @HttpCode(200)
  @ApiBody({ type: DestroyDiamondDto, required: false })
  @ApiOperation({
    summary: 'Mark a rough diamond you hold as destroyed (lost in manufacturing; manufacturer)',
    description: 'Body optional: `{participant_timestamp}`. 200 with the record (`destroyed`); 409 `illegal_transition`, `in_transit`; 404.',
  })
  async destroy(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Req() req: FastifyRequest): Promise<DiamondV1> {
    // The body is optional: no body is an empty one; anything sent is validated like every body.
    const dto = (await pipe.transform(req.body ?? {}, { type: 'body', metatype: DestroyDiamondDto, data: '' })) as DestroyDiamondDto;
    return this.lifecycle.destroy(caller, diamondId, dto);
  }
}
