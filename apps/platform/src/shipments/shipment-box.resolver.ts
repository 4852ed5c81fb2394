import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { Decimal } from 'decimal.js';
import { ConflictError, SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND } from '@dtp/domain';
import { Tx, UnitOfWork } from '@dtp/database';
import { BoxResolver, ResolvedBox } from '../diamonds/box-resolver';
import { conflict } from './shipment-errors';
import { ShipmentRow } from './shipment.entity';
import { ShipmentsRepository } from './shipments.repository';

/** The form of the shipment ids this platform assigns (lowercased ULIDs); other box ids skip the lookup. */
const SHIPMENT_ID = /^[0-9a-z]{26}$/;

/**
 * Registration against a rough shipment (spec: "For boxes of another producer, `box_id` carries the shipment
 * id, and the shipment must first be accepted"). A `box_id` that is a shipment id names that shipment; any
 * other `box_id` is the caller's own box. Against a shipment, registration is refused (409) unless the caller
 * is its recipient, it is a rough shipment and it was accepted; each registration then reserves one diamond
 * and its carats on the shipment's counters in the registration's own transaction (shipments.repository.ts
 * `reserve`).
 */
@Injectable()
export class ShipmentBoxResolver extends BoxResolver {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly shipments: ShipmentsRepository,
  ) {
    super();
  }

  async resolve(caller: Caller, boxId: string): Promise<ResolvedBox> {
    const own: ResolvedBox = { kind: 'own', scope: caller.participantId };
    if (!SHIPMENT_ID.test(boxId)) return own;
    const s = await this.shipments.findRegistrable(this.uow.sql, boxId);
    if (!s) return own;
    const refuse = (why: string) => conflict('shipment_not_registrable', `cannot register against shipment ${boxId}: ${why}`);
    if (s.recipient_id !== caller.participantId) throw refuse('only its recipient registers diamonds against a shipment');
    if (s.shipment_type !== 'rough') throw refuse('diamonds are registered against rough shipments only');
    if (s.status !== 'completed') throw refuse('the shipment has not been accepted yet; accept it first (POST /v2/transfer/in/{shipment_id}/accept)');
    if (s.accepted_count === 0) throw refuse('the shipment was rejected');
    return {
      kind: 'shipment',
      scope: s.shipment_id,
      producerUuid: s.producer_uuid,
      provenance: s.provenance,
      reserve: (tx: Tx, carats: string) => this.reserve(tx, s.shipment_id, carats),
      links: (tx: Tx) => this.shipments.acceptedHeads(tx, s.shipment_id),
    };
  }

  private async reserve(tx: Tx, shipmentId: string, carats: string): Promise<void> {
    const r = await this.shipments.reserve(tx, shipmentId, carats);
    if (!r.ok) throw limitExceeded(r.shipment, carats);
  }
}

/** The 409 naming the limit a registration would pass. */
export function limitExceeded(s: ShipmentRow, carats: string): ConflictError {
  if (s.registered_count >= s.total_diamonds) {
    return conflict(
      'shipment_count_exceeded',
      `shipment ${s.shipment_id} holds ${s.total_diamonds} diamond(s) and ${s.registered_count} are already registered against it; no more can be registered`,
      { limit_diamonds: s.total_diamonds, registered_diamonds: s.registered_count },
    );
  }
  const limit = weightLimit(s);
  const would = new Decimal(s.registered_carats).plus(carats);
  return conflict(
    'shipment_weight_exceeded',
    `registering ${carats} ct against shipment ${s.shipment_id} would bring its registered weight to ${would.toFixed()} ct, above the limit of ` +
      `${limit} ct (${new Decimal(s.total_carats).toFixed()} ct shipped + ${SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND} ct for each of its ${s.total_diamonds} diamond(s))`,
    { limit_carats: limit, registered_carats: new Decimal(s.registered_carats).toFixed() },
  );
}

/** Total carats + 0.01 ct per shipped diamond, in decimal arithmetic. */
export function weightLimit(s: Pick<ShipmentRow, 'total_carats' | 'total_diamonds'>): string {
  return new Decimal(s.total_carats).plus(new Decimal(SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND).times(s.total_diamonds)).toFixed();
}
