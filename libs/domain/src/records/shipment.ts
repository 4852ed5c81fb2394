import type { ShipmentStatus, ShipmentType, TransferState } from '../enums/shipment';
import type { LifecycleState } from '../enums/diamond-state';

/** Rough summary inside a shipment diamond entry. */
export interface ShipmentRoughSummary {
  carats: string;
  colour: string | null;
  model: string | null;
  quality: string | null;
  stress: string | null;
  box_id: string;
  sight_year: number | null;
  sight_number: number | null;
}

/** Polished summary inside a shipment diamond entry. */
export interface ShipmentPolishedSummary {
  carats: string | null;
  clarity: string | null;
  colour: string | null;
  cut_grade: string | null;
  shape: string | null;
}

export interface ShipmentDiamondEntry {
  /** `YYYY-MM-DDTHH:MM+0000` (rules/timestamps.ts). */
  created_at: string;
  updated_at: string;
  diamond_id: string;
  lifecycle_state: LifecycleState;
  transfer_state: TransferState;
  rough: ShipmentRoughSummary | null;
  polished: ShipmentPolishedSummary | null;
}

/** A shipment as listed by `GET {base_url}/v2/shipment/inbound` and returned by transfer out. */
export interface InboundShipment {
  id: string;
  name: string;
  /** Base address of the sender's instance. */
  sender: string;
  shipment_type: ShipmentType;
  status: ShipmentStatus;
  total_diamonds: number;
  /** `YYYY-MM-DDTHH:MM+0000`. */
  created_at: string;
  diamonds: ShipmentDiamondEntry[];
}

/** The list response envelope (`next`/`previous` are absolute page links or null). */
export interface ListEnvelope<T> {
  next: string | null;
  previous: string | null;
  page: number;
  pages: number;
  total: number;
  results: T[];
}
