import { ApiProperty } from '@nestjs/swagger';
import { SPLIT_MAX_CUTS, SPLIT_MIN_CUTS } from '../rules/limits';
import { DiamondV1 } from './diamond-v1';

/** The answer of `POST /diamonds/{diamond_id}/split`: the parent (now `split`) and its cuts in request order. */
export class SplitDiamondResponse {
  @ApiProperty({ type: () => DiamondV1, description: 'The parent, now `lifecycle_state: split`.' })
  parent!: DiamondV1;

  @ApiProperty({
    type: () => DiamondV1,
    isArray: true,
    minItems: SPLIT_MIN_CUTS,
    maxItems: SPLIT_MAX_CUTS,
    description: 'The new rough cuts (children of the parent, `locked`, `held` by you), in request order.',
  })
  cuts!: DiamondV1[];
}
