import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { InboundShipment, isDiamondId, ParticipantEventTypes, TransferDecisionDto, TransferState } from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import { participantEvent, writeParticipantEvents } from '../webhooks/participant-events';
import { UnitOfWork } from '@dtp/database';
import { DiamondChanges, DiamondPatch } from '../diamonds/diamond-changes';
import { DiamondRow } from '../diamonds/diamond.entity';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { GradedMeasurementsRepository } from '../diamonds/graded-measurements.repository';
import { conflict, idList, shipmentNotFound } from './shipment-errors';
import { shipmentChanged } from './shipment-events';
import { toShipmentView } from './shipment.mapper';
import { ShipmentRow } from './shipment.entity';
import { ShipmentsRepository } from './shipments.repository';

export type TransferDecision = 'accept' | 'reject';

const STATE: Record<TransferDecision, TransferState> = { accept: 'transfer_in_confirmed', reject: 'transfer_in_rejected' };

/**
 * The recipient's answer to a shipment (`POST /v2/transfer/in/{id}/accept`, `.../reject`). The shipment row is
 * locked FOR UPDATE first, so answers to one shipment run one at a time and each sees the previous one's result:
 * two concurrent accepts of the same diamonds give one 200 and one 409, never a double transfer.
 *
 * - Only the recipient sees the shipment; anyone else gets the 404 of an unknown id.
 * - Every listed id must be pending in this shipment (409 `not_pending` naming the others).
 * - Rough shipments are answered as a whole: the body lists exactly every pending diamond (409
 *   `rough_shipment_all_or_nothing` otherwise); nothing changes on any refusal.
 * - Accepted diamonds pass to the recipient (`held`, `unlocked` for good; only the active graded measurement
 *   travels, the others are held back); rejected ones go back to the sender (`held`).
 */
@Injectable()
export class TransferInService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
    private readonly graded: GradedMeasurementsRepository,
    private readonly shipments: ShipmentsRepository,
  ) {}

  async decide(caller: Caller, shipmentId: string, dto: TransferDecisionDto, decision: TransferDecision): Promise<InboundShipment> {
    if (!isDiamondId(shipmentId)) throw shipmentNotFound();
    const now = new Date();
    return this.uow.run(async (sql) => {
      const shipment = await this.shipments.find(sql, shipmentId, { lock: true });
      if (!shipment || shipment.recipient_id !== caller.participantId) throw shipmentNotFound();
      const entries = await this.shipments.entries(sql, shipmentId);
      const byId = new Map(entries.map((e) => [e.diamond_id, e]));
      const ids = dto.diamond_ids;
      const notInShipment = ids.filter((id) => !byId.has(id));
      const answered = ids.filter((id) => byId.has(id) && byId.get(id)!.transfer_state !== 'transfer_in_pending');
      if (notInShipment.length > 0 || answered.length > 0) {
        const parts = [
          notInShipment.length > 0 ? `not in shipment ${shipmentId}: ${idList(notInShipment)}` : null,
          answered.length > 0 ? `already accepted or rejected: ${idList(answered)}` : null,
        ].filter((p) => p !== null);
        throw conflict('not_pending', `only diamonds awaiting an answer in this shipment can be ${decision}ed; ${parts.join('; ')}`, {
          diamond_ids: [...notInShipment, ...answered],
          not_in_shipment: notInShipment,
          already_answered: answered,
        });
      }
      const pending = entries.filter((e) => e.transfer_state === 'transfer_in_pending').map((e) => e.diamond_id);
      if (shipment.shipment_type === 'rough' && ids.length !== pending.length) {
        const listed = new Set(ids);
        const missing = pending.filter((id) => !listed.has(id));
        throw conflict(
          'rough_shipment_all_or_nothing',
          `a rough shipment is ${decision}ed as a whole: list all ${pending.length} diamonds of shipment ${shipmentId}; missing: ${idList(missing)}`,
          { missing_diamond_ids: missing },
        );
      }
      const rows = await this.diamonds.findManyForUpdate(sql, ids);
      checkInTransit(shipment, ids, rows);
      const custody = {
        action: decision === 'accept' ? 'accepted' : 'rejected',
        actor: caller.participantId,
        context: { shipment_id: shipment.shipment_id, counterparty_participant_id: shipment.sender_id },
      } as const;
      await this.changes.commitMany(sql, rows, patchFor(decision, shipment), () => custody, now);
      if (decision === 'accept') await this.graded.holdBackInactive(sql, ids);
      const n = await this.shipments.answer(sql, shipmentId, ids, STATE[decision], now);
      if (n !== ids.length) throw new Error(`answered ${n} of ${ids.length} entries of shipment ${shipmentId}`);
      const after = await this.shipments.entries(sql, shipmentId);
      const done = after.every((e) => e.transfer_state !== 'transfer_in_pending');
      const updated: ShipmentRow = { ...shipment, status: done ? 'completed' : 'action_required', revision: Number(shipment.revision) + 1, updated_at: now };
      await this.shipments.saveState(sql, updated);
      await writeOutbox(sql, [shipmentChanged(updated, after, now)]);
      // The sender's dtp.shipment.accepted / rejected: the shipment and the diamonds answered.
      const type = decision === 'accept' ? ParticipantEventTypes.SHIPMENT_ACCEPTED : ParticipantEventTypes.SHIPMENT_REJECTED;
      await writeParticipantEvents(sql, [participantEvent(shipment.sender_id, type, shipmentId, { shipment_id: shipmentId, diamond_ids: ids }, now)]);
      return toShipmentView(updated, after);
    });
  }
}

function patchFor(decision: TransferDecision, shipment: ShipmentRow): () => DiamondPatch {
  if (decision === 'accept') {
    return () => ({ holder_id: shipment.recipient_id, possession_state: 'held', unlock_status: 'unlocked' });
  }
  return () => ({ holder_id: shipment.sender_id, possession_state: 'held' });
}

/** A pending entry's diamond is in transit and still held by the sender: anything else is a broken invariant. */
function checkInTransit(shipment: ShipmentRow, ids: string[], rows: DiamondRow[]): void {
  const ok = new Set(rows.filter((r) => r.possession_state === 'in_transit' && r.holder_id === shipment.sender_id).map((r) => r.diamond_id));
  const broken = ids.filter((id) => !ok.has(id));
  if (broken.length > 0) {
    throw new Error(`shipment ${shipment.shipment_id}: pending diamonds not in transit with the sender: ${broken.join(', ')}`);
  }
}
