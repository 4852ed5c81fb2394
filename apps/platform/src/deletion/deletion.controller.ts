import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { BulkDeleteRequestDto, BulkDeleteResponse } from '@dtp/domain';
import { DeletionService } from './deletion.service';

@ApiTags('deletion')
@Controller()
export class DeletionController {
  constructor(private readonly service: DeletionService) {}

  @Post('bulk/diamonds/delete')
  @HttpCode(200)
  @Roles('producer', 'manufacturer')
  @ApiOperation({
    summary: 'Delete diamonds you uploaded (permanent)',
    description:
      'Up to 1,000 entries, each handled on its own; results in request order. Failure reasons: not_found, not_owner, ' +
      'unlocked, descendant_unlocked, has_descendants, in_transit. Retailers: 403.',
  })
  async delete(@CurrentCaller() caller: Caller, @Body() body: BulkDeleteRequestDto): Promise<BulkDeleteResponse> {
    return this.service.deleteMany(caller, body.diamonds);
  }
}
