import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import type { DiamondV1 } from '@dtp/domain';
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
    summary: 'Unlock a diamond (the portal\'s manual unlock)',
    description: 'Holder only; `unlock_status` becomes `unlocked` for good. Idempotent. 200 with the record; 403 when another participant holds it; 404 when no such diamond exists.',
  })
  async unlock(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string): Promise<DiamondV1> {
    return this.service.unlock(caller, diamondId);
  }
}
