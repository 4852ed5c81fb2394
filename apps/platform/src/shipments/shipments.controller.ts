import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Caller, CurrentCaller, Roles } from '@dtp/auth-guard';
import { InboundShipment, InboundShipmentQueryDto, invalidFields, ListEnvelope, TransferDecisionDto, TransferOutDto } from '@dtp/domain';
import { ShipmentListService } from './shipment-list.service';
import { TransferInService } from './transfer-in.service';
import { TransferOutService } from './transfer-out.service';
import { ShipmentIdParam } from '../path-ids';

/** Offsets past this are refused (the database's bigint would overflow long before a real list gets there). */
const MAX_OFFSET = 1_000_000_000;

function checkOffset(q: InboundShipmentQueryDto): InboundShipmentQueryDto {
  if ((q.page - 1) * q.page_size > MAX_OFFSET) {
    throw invalidFields([{ loc: ['query', 'page'], msg: `page must be at most ${Math.floor(MAX_OFFSET / q.page_size) + 1} for page_size ${q.page_size}`, type: 'less_than_equal' }]);
  }
  return q;
}

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
    summary: 'Ship diamonds you hold to another participant',
    description:
      '201 with the shipment. Rough shipments hold rough diamonds only (senders: producers, manufacturers; recipients: producers, ' +
      'manufacturers), polished shipments polished ones. The diamonds go `in_transit` until the recipient answers. 404 for diamonds you ' +
      'do not hold; 409 `in_transit` or `wrong_lifecycle_state`; 422 for an unknown recipient or yourself.',
  })
  async transferOut(@CurrentCaller() caller: Caller, @Body() body: TransferOutDto): Promise<InboundShipment> {
    return this.out.transferOut(caller, body);
  }

  @Get('v2/shipment/inbound')
  @ApiOperation({
    summary: 'Shipments sent to you',
    description: 'Query `shipment_type` (rough, polished), `page` (from 1), `page_size` (default 50, max 100). Oldest first (created_at, id).',
  })
  async listInbound(@CurrentCaller() caller: Caller, @Query() query: InboundShipmentQueryDto): Promise<ListEnvelope<InboundShipment>> {
    return this.lists.list(caller, 'recipient', checkOffset(query));
  }

  @Get('v2/shipment/outbound')
  @ApiOperation({ summary: 'Shipments you sent', description: 'Same query, envelope and order as the inbound list.' })
  async listOutbound(@CurrentCaller() caller: Caller, @Query() query: InboundShipmentQueryDto): Promise<ListEnvelope<InboundShipment>> {
    return this.lists.list(caller, 'sender', checkOffset(query));
  }

  @Post('v2/transfer/in/:shipment_id/accept')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Accept diamonds of a shipment sent to you',
    description:
      'Body `{"diamond_ids": [...]}`. Rough shipments: exactly every pending diamond (409 `rough_shipment_all_or_nothing` otherwise); ' +
      'polished: any pending ones (409 `not_pending` naming the others). Accepted diamonds become yours, held and unlocked. ' +
      '200 with the shipment; 404 unless you are the recipient.',
  })
  async accept(@CurrentCaller() caller: Caller, @ShipmentIdParam() shipmentId: string, @Body() body: TransferDecisionDto): Promise<InboundShipment> {
    return this.inbound.decide(caller, shipmentId, body, 'accept');
  }

  @Post(['transfer/in/:shipment_id/reject', 'v2/transfer/in/:shipment_id/reject'])
  @HttpCode(200)
  @ApiOperation({
    summary: 'Reject diamonds of a shipment sent to you (also under /v2)',
    description: 'Same body and rules as accept; rejected diamonds go back to the sender, held. 200 with the shipment.',
  })
  async reject(@CurrentCaller() caller: Caller, @ShipmentIdParam() shipmentId: string, @Body() body: TransferDecisionDto): Promise<InboundShipment> {
    return this.inbound.decide(caller, shipmentId, body, 'reject');
  }
}
