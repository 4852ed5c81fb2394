import type { Caller } from '@dtp/auth-guard';
import type { DiamondV1Provenance } from '@dtp/domain';
import type { Tx } from '@dtp/database';

/** The caller's own box (a producer's sight box, a manufacturer's own parcel). */
export interface OwnBox {
  kind: 'own';
  /** Uniqueness namespace of participant_id: the registering participant. */
  scope: string;
}

/**
 * An accepted inbound rough shipment the caller registers against. Provenance and
 * producer are inherited from the shipped diamonds; `reserve` runs inside the registration's transaction, locks
 * the shipment and checks that the running count and weight stay within the shipment's totals (409 otherwise).
 */
export interface ShipmentBox {
  kind: 'shipment';
  /** Uniqueness namespace: the shipment. */
  scope: string;
  producerUuid: string;
  provenance: DiamondV1Provenance;
  reserve(tx: Tx, carats: string): Promise<void>;
  /**
   * In the registration's transaction: the latest custody entries (`custody_head`) of the shipment's accepted
   * diamonds that this platform holds, the new diamond's `registered` entry's `links` (DESIGN.md "Provenance").
   */
  links(tx: Tx): Promise<string[]>;
}

export type ResolvedBox = OwnBox | ShipmentBox;

/**
 * Decides what a registration's `box_id` names: a port below both features, so that registration (which asks)
 * and shipments (which answers, ShipmentBoxResolver) each depend on it and not on each other. ShipmentsModule
 * provides and exports the implementation; RegistrationModule imports ShipmentsModule.
 */
export abstract class BoxResolver {
  abstract resolve(caller: Caller, boxId: string): Promise<ResolvedBox>;
}
