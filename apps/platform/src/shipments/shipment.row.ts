import type {
  DiamondV1Provenance,
  LifecycleState,
  ShipmentPolishedSummary,
  ShipmentRoughSummary,
  ShipmentStatus,
  ShipmentType,
  TransferState,
} from '@dtp/domain';

/** One row of `shipments` (snake_case = column names). Never an API body: shipment.mapper.ts makes the view. */
export interface ShipmentRow {
  shipment_id: string;
  name: string;
  shipment_type: ShipmentType;
  status: ShipmentStatus;
  sender_id: string;
  recipient_id: string;
  /** Base address of the sender's instance (PUBLIC_BASE_URL when it was shipped): the listed `sender`. */
  sender_base_url: string;
  total_diamonds: number;
  /** numeric: pg returns it as text. */
  total_carats: string;
  producer_uuid: string;
  provenance: DiamondV1Provenance;
  registered_count: number;
  registered_carats: string;
  /** bigint: pg returns it as text. */
  revision: number | string;
  created_at: Date;
  updated_at: Date;
}

/** One row of `shipment_diamonds`: a diamond as shipped (its summaries at that moment) and its transfer state. */
export interface ShipmentDiamondRow {
  shipment_id: string;
  diamond_id: string;
  position: number;
  transfer_state: TransferState;
  lifecycle_state: LifecycleState;
  rough: ShipmentRoughSummary | null;
  polished: ShipmentPolishedSummary | null;
  created_at: Date;
  updated_at: Date;
}

/** A shipment with its entries, in shipping order. */
export interface ShipmentWithDiamonds {
  shipment: ShipmentRow;
  diamonds: ShipmentDiamondRow[];
}
