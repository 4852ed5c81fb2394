import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { CreateRoughDiamondDto, DiamondV1, ROUGH_DIAMOND_EXAMPLE } from '@dtp/domain';
import { ApiErrors, PrewrittenJson } from '@dtp/service-kit';
import { Errors } from '../api-docs';
import { RegistrationService } from './registration.service';

@ApiTags('registration')
@Controller()
export class RegistrationController {
  constructor(private readonly registration: RegistrationService) {}

  @Post('diamonds/rough/create')
  @HttpCode(200)
  @Roles('producer', 'manufacturer')
  @ApiOperation({
    operationId: 'CreateRoughDiamond',
    summary: 'Register a rough diamond',
    description:
      "Registers a rough diamond against the caller's box, or against an accepted inbound rough shipment (`box_id` = the shipment id: " +
      'the diamonds registered against it may not pass its count, nor its weight plus 0.01 ct per diamond). 200 with the DiamondV1 record, ' +
      '`locked` and `held`; 409 `diamond_not_unique` when the participant_id is already registered in that box; 422 naming each bad field; ' +
      '403 for retailers.',
  })
  @ApiBody({
    type: CreateRoughDiamondDto,
    examples: {
      producerBox: {
        summary: 'A producer registers a rough diamond from its sight box',
        value: {
          box_id: 'BOX-2024-0042',
          participant_id: 'STOCK-000123',
          participant_timestamp: '2024-05-01T10:00:00Z',
          box_description: 'Sight 5, 2024',
          sight_no: 5,
          sight_year: 2024,
          entity_specific_tags: { dit_session_id: 'dit-2024-05-01-0007' },
          rough: { carats: 2.35, colour: 'G', model: 'Sawable', quality: 'Gem', stress: 'light stress' },
        },
      },
    },
  })
  @ApiOkResponse({ description: 'The new diamond record.', type: DiamondV1, example: ROUGH_DIAMOND_EXAMPLE })
  @ApiErrors({
    403: Errors.role('producers and manufacturers'),
    409: {
      description:
        'The participant_id is already registered in that box or shipment, or the shipment named by box_id cannot take it (not yours, ' +
        'not a rough shipment, not accepted yet, rejected, or its diamond count or weight would be passed)',
      reasons: ['diamond_not_unique', 'shipment_not_registrable', 'shipment_count_exceeded', 'shipment_weight_exceeded'],
    },
    413: Errors.bodyTooLarge,
    422: Errors.invalidBody,
    503: Errors.unavailable,
  })
  async create(@CurrentCaller() caller: Caller, @Body() body: CreateRoughDiamondDto): Promise<PrewrittenJson<DiamondV1>> {
    // The record's JSON was written for its event: the answer is that text, not the record written again.
    const { record, recordJson } = await this.registration.registerRough(caller, body);
    return new PrewrittenJson(record, recordJson);
  }
}
