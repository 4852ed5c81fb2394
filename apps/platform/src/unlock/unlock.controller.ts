import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { DiamondV1, ROUGH_DIAMOND_EXAMPLE } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiDiamondIdParam, ApiNoBodyErrors, ApiPathErrors, Errors } from '../api-docs';
import { UnlockService } from './unlock.service';
import { DiamondIdParam } from '../path-ids';

@ApiTags('diamonds')
@Controller()
export class UnlockController {
  constructor(private readonly service: UnlockService) {}

  @Post('diamonds/:diamond_id/unlock')
  @HttpCode(200)
  @Roles('producer', 'manufacturer', 'retailer')
  @ApiOperation({
    operationId: 'unlockDiamond',
    summary: "Unlock a diamond (the portal's manual unlock)",
    description:
      'Holder only; `unlock_status` becomes `unlocked` for good. Idempotent. 200 with the record; 403 when another participant holds it; 404 when no such diamond exists.',
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiPathErrors()
  @ApiOkResponse({
    description: 'The record, unlocked.',
    type: DiamondV1,
    example: { ...ROUGH_DIAMOND_EXAMPLE, unlock_status: 'unlocked', version_id: '01hy8a2b4c6d8e0f2g4h6j8k0m' },
  })
  @ApiNoBodyErrors()
  @ApiErrors({
    403: { description: 'A role other than producer, manufacturer or retailer, or another participant holds the diamond', reasons: ['not_holder'] },
    404: Errors.diamondNotFound,
    409: { description: Errors.inTransit, reasons: ['in_transit'] },
    503: Errors.unavailable,
  })
  async unlock(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string): Promise<DiamondV1> {
    return this.service.unlock(caller, diamondId);
  }
}
