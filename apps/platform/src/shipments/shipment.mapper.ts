import { Decimal } from 'decimal.js';
import {
  DiamondV1Provenance,
  formatShipmentTimestamp,
  InboundShipment,
  ShipmentChangedData,
  ShipmentDiamondEntry,
  ShipmentPolishedSummary,
  ShipmentRoughSummary,
  ShipmentType,
  toDecimal,
} from '@dtp/domain';
import type { DiamondRow } from '../diamonds/diamond.entity';
import type { ShipmentDiamondRow, ShipmentRow } from './shipment.entity';

const int = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The rough summary of a shipment entry (null when the diamond has no rough data). */
export function roughSummary(row: DiamondRow): ShipmentRoughSummary | null {
  const r = row.rough;
  if (r.carats === undefined || r.carats === null) return null;
  return {
    carats: r.carats,
    colour: r.colour ?? null,
    model: r.model ?? null,
    quality: r.quality ?? null,
    stress: r.stress ?? null,
    box_id: row.box_id ?? '',
    sight_year: int(row.sight_year),
    sight_number: int(row.sight_no),
  };
}

/** The polished summary of a shipment entry (null unless the diamond is at the polished stage). */
export function polishedSummary(row: DiamondRow): ShipmentPolishedSummary | null {
  if (row.current_stage !== 'polished') return null;
  const p = row.polished;
  return {
    carats: p.carats ?? null,
    clarity: p.clarity ?? null,
    colour: p.colour ?? null,
    cut_grade: p.cut_grade ?? null,
    shape: p.shape ?? null,
  };
}

/** Total shipped weight: rough carats of a rough shipment, polished carats of a polished one (decimal arithmetic). */
export function totalCarats(type: ShipmentType, rows: DiamondRow[]): string {
  let sum = new Decimal(0);
  for (const row of rows) {
    const carats = type === 'rough' ? row.rough.carats : row.polished.carats;
    if (carats !== undefined && carats !== null) sum = sum.plus(toDecimal(carats));
  }
  return sum.toFixed();
}

const sameProvenance = (a: DiamondV1Provenance, b: DiamondV1Provenance): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What diamonds registered against the shipment inherit: the shipped diamonds' producer and provenance. When
 * they disagree (a shipment mixing several producers' diamonds), the provenance is left for the platform to set
 * (names null, not locked, as for a manufacturer's own box) and the producer is the first diamond's.
 */
export function inheritedOrigin(rows: DiamondRow[]): { producerUuid: string; provenance: DiamondV1Provenance } {
  const first = rows[0];
  const uniform = rows.every((r) => r.producer_uuid === first.producer_uuid && sameProvenance(r.provenance, first.provenance));
  if (uniform) return { producerUuid: first.producer_uuid, provenance: first.provenance };
  return {
    producerUuid: first.producer_uuid,
    provenance: { provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false },
  };
}

export function toShipmentEntry(d: ShipmentDiamondRow): ShipmentDiamondEntry {
  return {
    created_at: formatShipmentTimestamp(d.created_at),
    updated_at: formatShipmentTimestamp(d.updated_at),
    diamond_id: d.diamond_id,
    lifecycle_state: d.lifecycle_state,
    transfer_state: d.transfer_state,
    // Stored as jsonb (which reorders keys): rebuilt here in the spec's member order.
    rough: d.rough && {
      carats: d.rough.carats,
      colour: d.rough.colour,
      model: d.rough.model,
      quality: d.rough.quality,
      stress: d.rough.stress,
      box_id: d.rough.box_id,
      sight_year: d.rough.sight_year,
      sight_number: d.rough.sight_number,
    },
    polished: d.polished && {
      carats: d.polished.carats,
      clarity: d.polished.clarity,
      colour: d.polished.colour,
      cut_grade: d.polished.cut_grade,
      shape: d.polished.shape,
    },
  };
}

/** The spec's inbound shipment (also the outbound list's and the transfer calls' answer). */
export function toShipmentView(s: ShipmentRow, diamonds: ShipmentDiamondRow[]): InboundShipment {
  return {
    id: s.shipment_id,
    name: s.name,
    sender: s.sender_base_url,
    shipment_type: s.shipment_type,
    status: s.status,
    total_diamonds: s.total_diamonds,
    created_at: formatShipmentTimestamp(s.created_at),
    diamonds: diamonds.map(toShipmentEntry),
  };
}

/** `shipment.changed` data: the shipment's current state. */
export function toShipmentChanged(s: ShipmentRow, diamonds: ShipmentDiamondRow[]): ShipmentChangedData {
  return {
    shipment_id: s.shipment_id,
    name: s.name,
    shipment_type: s.shipment_type,
    status: s.status,
    sender_participant_id: s.sender_id,
    recipient_participant_id: s.recipient_id,
    sender: s.sender_base_url,
    total_diamonds: s.total_diamonds,
    diamonds: diamonds.map((d) => ({ diamond_id: d.diamond_id, transfer_state: d.transfer_state })),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
