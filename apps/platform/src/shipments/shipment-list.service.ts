import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { InboundShipment, InboundShipmentQueryDto, ListEnvelope } from '@dtp/domain';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import { envelope } from './paging';
import { toShipmentView } from './shipment.mapper';
import { ShipmentParty, ShipmentsRepository } from './shipments.repository';

export const INBOUND_PATH = '/v2/shipment/inbound';
export const OUTBOUND_PATH = '/v2/shipment/outbound';

/**
 * `GET /v2/shipment/inbound` (the recipient's shipments) and `/v2/shipment/outbound` (the sender's): the spec's
 * list envelope, a stable order (created_at, id), offset paging, absolute page links built from PUBLIC_BASE_URL.
 */
@Injectable()
export class ShipmentListService {
  constructor(
    private readonly shipments: ShipmentsRepository,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async list(caller: Caller, party: ShipmentParty, q: InboundShipmentQueryDto): Promise<ListEnvelope<InboundShipment>> {
    const { rows, total } = await this.shipments.page(null, {
      party,
      participantId: caller.participantId,
      shipmentType: q.shipment_type,
      limit: q.page_size,
      offset: (q.page - 1) * q.page_size,
    });
    const entries = await this.shipments.entriesOf(
      null,
      rows.map((r) => r.shipment_id),
    );
    const results = rows.map((s) => toShipmentView(s, entries.get(s.shipment_id) ?? []));
    const path = party === 'recipient' ? INBOUND_PATH : OUTBOUND_PATH;
    return envelope(this.config.PUBLIC_BASE_URL, path, { page: q.page, pageSize: q.page_size, filters: { shipment_type: q.shipment_type } }, total, results);
  }
}
