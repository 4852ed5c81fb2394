import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import {
  DomainError,
  ForbiddenError,
  InboundShipment,
  isDiamondId,
  newDiamondId,
  NotFoundError,
  ParticipantEventTypes,
  PLATFORM_ROLES,
  TransferOutDto,
} from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import { participantEvent, writeParticipantEvents } from '../webhooks/participant-events';
import type { PlatformConfig } from '../config';
import { UnitOfWork } from '@dtp/database';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondRow } from '../diamonds/diamond.entity';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ParticipantDirectory } from '../participants/participant-directory';
import { PLATFORM_CONFIG } from '../tokens';
import { badField, conflict, idList } from './shipment-errors';
import { shipmentChanged } from './shipment-events';
import { inheritedOrigin, polishedSummary, roughSummary, toShipmentView, totalCarats } from './shipment.mapper';
import { ShipmentDiamondRow, ShipmentRow } from './shipment.entity';
import { ShipmentsRepository } from './shipments.repository';

/**
 * `POST /v2/transfer/out`: the holder ships diamonds to another onboarded participant. In one transaction the
 * diamonds are locked (in id order), checked, recorded in a new shipment and set `in_transit` (a new version
 * and `diamond.upserted` each), and the shipment's `shipment.changed` goes to the outbox.
 */
@Injectable()
export class TransferOutService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
    private readonly shipments: ShipmentsRepository,
    private readonly directory: ParticipantDirectory,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async transferOut(caller: Caller, dto: TransferOutDto): Promise<InboundShipment> {
    await this.checkParties(caller, dto);
    const ids = dto.diamond_ids;
    const malformed = ids.filter((id) => !isDiamondId(id));
    if (malformed.length > 0) throw notFound(malformed);
    const now = new Date();
    return this.uow.run(async (sql) => {
      const rows = await this.diamonds.findManyForUpdate(sql, ids);
      const byId = new Map(rows.map((r) => [r.diamond_id, r]));
      const unknown = ids.filter((id) => !byId.has(id));
      if (unknown.length > 0) throw notFound(unknown);
      const notHeld = ids.filter((id) => byId.get(id)!.holder_id !== caller.participantId);
      if (notHeld.length > 0) throw notHeldByCaller(notHeld);
      const ordered = ids.map((id) => byId.get(id)!);
      const moving = ordered.filter((r) => r.possession_state === 'in_transit').map((r) => r.diamond_id);
      if (moving.length > 0) {
        throw conflict('in_transit', `already in transit (in a shipment not answered yet): ${idList(moving)}`, { diamond_ids: moving });
      }
      const wrong = ordered.filter((r) => r.lifecycle_state !== dto.shipment_type);
      if (wrong.length > 0) {
        throw conflict(
          'wrong_lifecycle_state',
          `a ${dto.shipment_type} shipment holds diamonds whose lifecycle_state is ${dto.shipment_type} only; not: ` +
            idList(wrong.map((r) => `${r.diamond_id} (${r.lifecycle_state})`)),
          { diamond_ids: wrong.map((r) => r.diamond_id) },
        );
      }
      const { shipment, entries } = newShipment(caller, dto, ordered, this.config.PUBLIC_BASE_URL, now);
      await this.shipments.insert(sql, shipment, entries);
      const custody = {
        action: 'shipped',
        actor: caller.participantId,
        context: { shipment_id: shipment.shipment_id, counterparty_participant_id: shipment.recipient_id },
      } as const;
      await this.changes.commitMany(
        sql,
        ordered,
        () => ({ possession_state: 'in_transit' }),
        () => custody,
        now,
      );
      await writeOutbox(sql, [shipmentChanged(shipment, entries, now)]);
      const view = toShipmentView(shipment, entries);
      // The recipient's dtp.shipment.inbound (its feed and webhooks), with the shipment as its inbound list shows it.
      await writeParticipantEvents(sql, [participantEvent(shipment.recipient_id, ParticipantEventTypes.SHIPMENT_INBOUND, shipment.shipment_id, view, now)]);
      return view;
    });
  }

  /** Sender role, recipient known to platform (from auth.participants.v1), not the sender, able to receive it. */
  private async checkParties(caller: Caller, dto: TransferOutDto): Promise<void> {
    if (dto.shipment_type === 'rough' && caller.role === 'retailer') {
      throw new ForbiddenError('retailers send polished shipments only');
    }
    const rid = dto.recipient_participant_id;
    if (rid === caller.participantId) {
      throw badField('recipient_participant_id', 'a shipment cannot be sent to yourself', 'value_error.self_shipment');
    }
    const recipient = await this.directory.get(rid);
    if (!recipient) {
      throw badField(
        'recipient_participant_id',
        `no onboarded participant ${rid} is known to the platform (a participant onboarded a moment ago becomes known within about a second)`,
        'value_error.unknown_participant',
      );
    }
    if (!PLATFORM_ROLES.includes(recipient.role)) {
      throw badField(
        'recipient_participant_id',
        `participant ${rid} is a ${recipient.role}; shipments go to producers, manufacturers and retailers`,
        'value_error.recipient_role',
      );
    }
    if (dto.shipment_type === 'rough' && recipient.role === 'retailer') {
      throw badField('recipient_participant_id', `participant ${rid} is a retailer; retailers receive polished shipments only`, 'value_error.recipient_role');
    }
  }
}

function notFound(ids: string[]): NotFoundError {
  return new NotFoundError({ message: `diamond not found: ${idList(ids)}`, diamond_ids: ids });
}

/** Diamonds that exist but that another participant holds: only their holder may ship them (`{message, reason, diamond_ids}`). */
function notHeldByCaller(ids: string[]): DomainError {
  return new DomainError('forbidden', {
    message: `only the holder of a diamond may ship it; you do not hold: ${idList(ids)}`,
    reason: 'not_holder',
    diamond_ids: ids,
  });
}

/** The new shipment row and its entries (each diamond's summary as shipped, pending). */
export function newShipment(
  caller: Caller,
  dto: TransferOutDto,
  rows: DiamondRow[],
  baseUrl: string,
  now: Date,
): { shipment: ShipmentRow; entries: ShipmentDiamondRow[] } {
  const origin = inheritedOrigin(rows);
  const shipment: ShipmentRow = {
    shipment_id: newDiamondId(),
    name: dto.name,
    shipment_type: dto.shipment_type,
    status: 'action_required',
    sender_id: caller.participantId,
    recipient_id: dto.recipient_participant_id,
    sender_base_url: baseUrl.replace(/\/+$/, ''),
    total_diamonds: rows.length,
    total_carats: totalCarats(dto.shipment_type, rows),
    producer_uuid: origin.producerUuid,
    provenance: origin.provenance,
    registered_count: 0,
    registered_carats: '0',
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  const entries = rows.map((r, i): ShipmentDiamondRow => ({
    shipment_id: shipment.shipment_id,
    diamond_id: r.diamond_id,
    position: i,
    transfer_state: 'transfer_in_pending',
    lifecycle_state: r.lifecycle_state,
    rough: roughSummary(r),
    polished: polishedSummary(r),
    created_at: now,
    updated_at: now,
  }));
  return { shipment, entries };
}
