import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import {
  ACCEPTED_SHIPMENT_EXAMPLE,
  EXAMPLE_IDS,
  InboundShipment,
  InboundShipmentQueryDto,
  invalidFields,
  ListEnvelope,
  ROUGH_SHIPMENT_EXAMPLE,
  SHIPMENT_LIST_EXAMPLE,
  ShipmentList,
  TransferDecisionDto,
  TransferOutDto,
} from '@dtp/domain';
import { ApiErrors } from '@dtp/service-kit';
import { ApiPathErrors, ApiShipmentIdParam, Errors } from '../api-docs';
import { ShipmentListService } from './shipment-list.service';
import { TransferInService } from './transfer-in.service';
import { TransferOutService } from './transfer-out.service';
import { ShipmentIdParam } from '../path-ids';

/** Offsets past this are refused (the database's bigint would overflow long before a real list gets there). */
const MAX_OFFSET = 1_000_000_000;

function checkOffset(q: InboundShipmentQueryDto): InboundShipmentQueryDto {
  if ((q.page - 1) * q.page_size > MAX_OFFSET) {
    throw invalidFields([
      { loc: ['query', 'page'], msg: `page must be at most ${Math.floor(MAX_OFFSET / q.page_size) + 1} for page_size ${q.page_size}`, type: 'less_than_equal' },
    ]);
  }
  return q;
}

const ROLE = Errors.role('producers, manufacturers and retailers');

/** The body of accept and reject (the same rules). */
const DECISION_BODY = {
  type: TransferDecisionDto,
  examples: { wholeRoughShipment: { summary: 'Every diamond of a rough shipment (all or nothing)', value: { diamond_ids: [EXAMPLE_IDS.roughDiamond] } } },
};

/** The errors of accept and reject. */
const DECISION_ERRORS = {
  403: ROLE,
  404: 'No such shipment, or one not sent to you (anyone but its recipient gets 404).',
  409: {
    description:
      'A listed diamond is not awaiting an answer in this shipment (`diamond_ids`, `not_in_shipment`, `already_answered` in the body), or a ' +
      "rough shipment's body does not list every pending diamond (`missing_diamond_ids`); nothing changed",
    reasons: ['not_pending', 'rough_shipment_all_or_nothing'],
  },
  413: Errors.bodyTooLarge,
  422: Errors.invalidBody,
  503: Errors.unavailable,
} as const;

/** The errors of the lists. */
const LIST_ERRORS = {
  403: ROLE,
  422: 'A query parameter out of range (`shipment_type` not a ShipmentType, `page` below 1 or its offset past 1,000,000,000, `page_size` not 1 to 100), named in `detail`.',
  503: Errors.unavailable,
} as const;

@ApiTags('shipments and transfers')
@Controller()
@Roles('producer', 'manufacturer', 'retailer')
export class ShipmentsController {
  constructor(
    private readonly out: TransferOutService,
    private readonly inbound: TransferInService,
    private readonly lists: ShipmentListService,
  ) {}

  @Post('v2/transfer/out')
  @HttpCode(201)
  @ApiOperation({
    operationId: 'transferOut',
    summary: 'Ship diamonds you hold to another participant',
    description:
      '201 with the shipment. Rough shipments hold rough diamonds only (senders: producers, manufacturers; recipients: producers, ' +
      'manufacturers), polished shipments polished ones. The diamonds go `in_transit` until the recipient answers. 404 for diamonds you ' +
      'do not hold; 409 `in_transit` or `wrong_lifecycle_state`; 422 for an unknown recipient or yourself.',
  })
  @ApiBody({
    type: TransferOutDto,
    examples: {
      roughToManufacturer: {
        summary: 'A producer ships a rough diamond to a manufacturer',
        value: {
          recipient_participant_id: EXAMPLE_IDS.manufacturer,
          name: 'May rough to cutting',
          shipment_type: 'rough',
          diamond_ids: [EXAMPLE_IDS.roughDiamond],
        },
      },
    },
  })
  @ApiCreatedResponse({
    description: 'The new shipment, `action_required`, every diamond `transfer_in_pending`.',
    type: InboundShipment,
    example: ROUGH_SHIPMENT_EXAMPLE,
  })
  @ApiErrors({
    403: {
      description:
        'A role other than producer, manufacturer or retailer, a retailer sending a rough shipment, or diamonds another participant holds (`diamond_ids` in the body)',
      reasons: ['not_holder'],
    },
    404: 'Diamonds that do not exist (`diamond_ids` in the body lists them).',
    409: {
      description: 'Diamonds already in transit, or whose lifecycle_state is not the shipment_type (`diamond_ids` in the body)',
      reasons: ['in_transit', 'wrong_lifecycle_state'],
    },
    413: Errors.bodyTooLarge,
    422: `${Errors.invalidBody} Also a recipient that is you, unknown to the platform, or not able to receive this shipment type.`,
    503: Errors.unavailable,
  })
  async transferOut(@CurrentCaller() caller: Caller, @Body() body: TransferOutDto): Promise<InboundShipment> {
    return this.out.transferOut(caller, body);
  }

  @Get('v2/shipment/inbound')
  @ApiOperation({
    operationId: 'listInboundShipments',
    summary: 'Shipments sent to you',
    description: 'Query `shipment_type` (rough, polished), `page` (from 1), `page_size` (default 50, max 100). Oldest first (created_at, id).',
  })
  @ApiOkResponse({ description: 'A page of the shipments sent to you.', type: ShipmentList, example: SHIPMENT_LIST_EXAMPLE })
  @ApiErrors(LIST_ERRORS)
  async listInbound(@CurrentCaller() caller: Caller, @Query() query: InboundShipmentQueryDto): Promise<ListEnvelope<InboundShipment>> {
    return this.lists.list(caller, 'recipient', checkOffset(query));
  }

  @Get('v2/shipment/outbound')
  @ApiOperation({ operationId: 'listOutboundShipments', summary: 'Shipments you sent', description: 'Same query, envelope and order as the inbound list.' })
  @ApiOkResponse({
    description: 'A page of the shipments you sent.',
    type: ShipmentList,
    example: { ...SHIPMENT_LIST_EXAMPLE, results: [ACCEPTED_SHIPMENT_EXAMPLE] },
  })
  @ApiErrors(LIST_ERRORS)
  async listOutbound(@CurrentCaller() caller: Caller, @Query() query: InboundShipmentQueryDto): Promise<ListEnvelope<InboundShipment>> {
    return this.lists.list(caller, 'sender', checkOffset(query));
  }

  @Post('v2/transfer/in/:shipment_id/accept')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptShipment',
    summary: 'Accept diamonds of a shipment sent to you',
    description:
      'Body `{"diamond_ids": [...]}`. Rough shipments: exactly every pending diamond (409 `rough_shipment_all_or_nothing` otherwise); ' +
      'polished: any pending ones (409 `not_pending` naming the others). Accepted diamonds become yours, held and unlocked. ' +
      '200 with the shipment; 404 unless you are the recipient.',
  })
  @ApiShipmentIdParam()
  @ApiPathErrors()
  @ApiBody(DECISION_BODY)
  @ApiOkResponse({
    description: 'The shipment after the answer (`completed` once no diamond awaits one).',
    type: InboundShipment,
    example: ACCEPTED_SHIPMENT_EXAMPLE,
  })
  @ApiErrors(DECISION_ERRORS)
  async accept(@CurrentCaller() caller: Caller, @ShipmentIdParam() shipmentId: string, @Body() body: TransferDecisionDto): Promise<InboundShipment> {
    return this.inbound.decide(caller, shipmentId, body, 'accept');
  }

  @Post(['transfer/in/:shipment_id/reject', 'v2/transfer/in/:shipment_id/reject'])
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rejectShipment',
    summary: 'Reject diamonds of a shipment sent to you (also under /v2)',
    description: 'Same body and rules as accept; rejected diamonds go back to the sender, held. 200 with the shipment.',
  })
  @ApiShipmentIdParam()
  @ApiPathErrors()
  @ApiBody(DECISION_BODY)
  @ApiOkResponse({
    description: 'The shipment after the answer (`completed` once no diamond awaits one).',
    type: InboundShipment,
    example: { ...ACCEPTED_SHIPMENT_EXAMPLE, diamonds: [{ ...ACCEPTED_SHIPMENT_EXAMPLE.diamonds[0], transfer_state: 'transfer_in_rejected' }] },
  })
  @ApiErrors(DECISION_ERRORS)
  async reject(@CurrentCaller() caller: Caller, @ShipmentIdParam() shipmentId: string, @Body() body: TransferDecisionDto): Promise<InboundShipment> {
    return this.inbound.decide(caller, shipmentId, body, 'reject');
  }
}
