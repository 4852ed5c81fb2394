import type { GradedMeasurementSource, GradingData, GradingDataView } from '@dtp/domain';

/** One row of `graded_measurements`. */
export interface GradedMeasurementRow {
  id: string;
  diamond_id: string;
  source: GradedMeasurementSource;
  is_active: boolean;
  is_selectable: boolean;
  /** Every GradingDataView member except the four record members; decimals as decimal text. */
  data: GradingData;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  /** Set when a transfer left this (inactive) record behind: only the active record travels downstream. */
  held_back_at?: Date | null;
}

/** The spec's GradingDataView of a stored record. */
export function toGradingDataView(row: GradedMeasurementRow): GradingDataView {
  return { ...row.data, id: row.id, is_active: row.is_active, is_selectable: row.is_selectable, source: row.source };
}
