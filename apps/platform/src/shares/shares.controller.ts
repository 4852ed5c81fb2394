import { Body, Controller, Delete, HttpCode, Param, Post, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { CreateShareRequest, isShareId, ShareLink } from '@dtp/domain';
import { ApiErrors, PathIdPipe } from '@dtp/service-kit';
import { ApiDiamondIdParam, ApiNoBodyErrors, ApiPathErrors, Errors, SAME_SHAPE_PATHS } from '../api-docs';
import { DiamondIdParam } from '../path-ids';
import { OptionalBodyInterceptor } from './optional-body.interceptor';
import { SharesService } from './shares.service';

const HOLDER_ROLES = 'producers, manufacturers and retailers holding the diamond';

/** Passport share links of a diamond (DESIGN.md "Provenance": passport). */
@ApiTags('diamonds')
@Controller('diamonds/:diamond_id/share')
export class SharesController {
  constructor(private readonly shares: SharesService) {}

  @Post()
  @HttpCode(201)
  @UseInterceptors(OptionalBodyInterceptor)
  @Roles('producer', 'manufacturer', 'retailer')
  @ApiOperation({
    operationId: 'createShareLink',
    summary: 'Create a passport share link of a diamond you hold',
    description:
      'Holder only. 201 with `{share_id, url, expires_at}`: `url` is the public passport page (`{search_url}/passport/{share_id}`), which anyone can open ' +
      'without a token until the link expires or is revoked. The link survives transfers of the diamond; whoever holds it then may revoke it. ' +
      'Optional body `{expires_at}` (a future date-time with a time zone); default: no expiry.',
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiPathErrors()
  @ApiBody({
    type: CreateShareRequest,
    required: false,
    examples: { noExpiry: { summary: 'Until revoked', value: {} }, expiring: { summary: 'Expires', value: { expires_at: '2030-01-01T00:00:00Z' } } },
  })
  @ApiCreatedResponse({
    description: 'The new link.',
    type: ShareLink,
    example: { share_id: 'q5Jx0C3c9tq3p0C5rQyWZw', url: 'https://search.example.com/passport/q5Jx0C3c9tq3p0C5rQyWZw', expires_at: null },
  })
  @ApiErrors({
    403: { description: `${Errors.role(HOLDER_ROLES)} Or another participant holds the diamond.`, reasons: ['not_holder'] },
    404: Errors.diamondNotFound,
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async create(@CurrentCaller() caller: Caller, @DiamondIdParam() diamondId: string, @Body() body: CreateShareRequest): Promise<ShareLink> {
    return this.shares.create(caller, diamondId, body?.expires_at);
  }

  @Delete(':share_id')
  @HttpCode(204)
  @Roles('producer', 'manufacturer', 'retailer')
  @ApiOperation({
    operationId: 'revokeShareLink',
    summary: 'Revoke a passport share link of a diamond you hold now',
    description:
      'Whoever holds the diamond now may revoke any of its links; the page then answers 404. Revoking it again answers 204 too. 404 when the link is not one of this diamond.' +
      SAME_SHAPE_PATHS,
  })
  @ApiDiamondIdParam('A diamond you hold.')
  @ApiParam({
    name: 'share_id',
    description: 'A link of this diamond. Out of format answers 404 like an unknown link.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', example: 'q5Jx0C3c9tq3p0C5rQyWZw' },
  })
  @ApiPathErrors()
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiNoBodyErrors()
  @ApiErrors({
    403: { description: `${Errors.role(HOLDER_ROLES)} Or another participant holds the diamond.`, reasons: ['not_holder'] },
    404: 'No such diamond, or no such link of this diamond.',
    503: Errors.unavailable,
  })
  async revoke(
    @CurrentCaller() caller: Caller,
    @DiamondIdParam() diamondId: string,
    @Param('share_id', new PathIdPipe(isShareId, { message: 'share not found' })) shareId: string,
  ): Promise<void> {
    await this.shares.revoke(caller, diamondId, shareId);
  }
}
