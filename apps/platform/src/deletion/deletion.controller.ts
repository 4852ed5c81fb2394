import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { BulkDeleteRequestDto, BulkDeleteResponse, DELETE_FAILURE_EXAMPLE, DELETE_SUCCESS_EXAMPLE, EXAMPLE_IDS } from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { Errors } from '../api-docs';
import { DeletionService } from './deletion.service';

@ApiTags('deletion')
@Controller()
export class DeletionController {
  constructor(private readonly service: DeletionService) {}

  @Post('bulk/diamonds/delete')
  @HttpCode(200)
  @Roles('producer', 'manufacturer')
  @ApiOperation({
    operationId: 'deleteDiamonds',
    summary: 'Delete diamonds you uploaded (permanent)',
    description:
      'Up to 1,000 entries, each handled on its own (a diamond and, with `delete_descendants`, its whole subtree go together or not at all); ' +
      'results in request order, 200 even when every entry failed. Failure reasons, checked in this order: not_found, not_owner, in_transit, ' +
      'unlocked, then has_descendants (descendants exist and delete_descendants is false) or descendant_unlocked / in_transit for a ' +
      'descendant. Retailers: 403.',
  })
  @ApiBody({
    type: BulkDeleteRequestDto,
    examples: {
      twoDiamonds: {
        summary: 'Delete one diamond with its descendants and another on its own',
        value: { diamonds: [{ diamond_id: DELETE_SUCCESS_EXAMPLE.diamond_id, delete_descendants: true }, { diamond_id: EXAMPLE_IDS.roughDiamond }] },
      },
    },
  })
  @ApiOkResponse({
    description: 'One result per requested diamond, in request order.',
    type: BulkDeleteResponse,
    example: { results: [DELETE_SUCCESS_EXAMPLE, DELETE_FAILURE_EXAMPLE] },
  })
  @ApiErrors({
    403: Errors.role('producers and manufacturers'),
    413: Errors.bodyTooLarge,
    422: `${Errors.invalidBody} No entries, or more than 1,000, is a 422 too.`,
    503: Errors.unavailable,
  })
  async delete(@CurrentCaller() caller: Caller, @Body() body: BulkDeleteRequestDto): Promise<BulkDeleteResponse> {
    return this.service.deleteMany(caller, body.diamonds);
  }
}
