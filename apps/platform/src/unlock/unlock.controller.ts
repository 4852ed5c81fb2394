import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import type { DiamondV1 } from '@dtp/domain';
import { UnlockService } from './unlock.service';

@ApiTags('diamonds')
@Controller()
export class UnlockController {
  constructor(private readonly service: UnlockService) {}

  @Post('diamonds/:diamond_id/unlock')
  @HttpCode(200)
  @Roles('producer', 'manufacturer', 'retailer')
  @ApiOperation({
    summary: 'Unlock a diamond (the portal\'s manual unlock)',
    description: 'Holder only; `unlock_status` becomes `unlocked` for good. Idempotent. 200 with the record; 404 when not found or not held.',
  })
  async unlock(@CurrentCaller() caller: Caller, @Param('diamond_id') diamondId: string): Promise<DiamondV1> {
    return this.service.unlock(caller, diamondId);
  }
}
