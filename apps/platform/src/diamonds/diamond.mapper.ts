import type { DiamondV1, GradingDataView } from '@dtp/domain';
import type { DiamondRow } from './diamond.entity';
import type { GradedMeasurementRow } from './graded-measurement.entity';

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const int = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * The one place a stored diamond becomes the spec's DiamondV1 (creation responses, unlock, the outbox's
 * `diamond.upserted`). `active` is the diamond's active graded measurement, if any: `grading` is then a
 * one-element array, otherwise null.
 */
export function toDiamondV1(row: DiamondRow, active: GradingDataView | null = null): DiamondV1 {
  return {
    diamond_id: row.diamond_id,
    diamond_parent_id: row.diamond_parent_id,
    id: row.legacy_id,
    parent_id: row.legacy_parent_id,
    version_id: row.version_id,
    is_current: true,
    schema_version: '1',
    current_stage: row.current_stage,
    lifecycle_state: row.lifecycle_state,
    possession_state: row.possession_state,
    unlock_status: row.unlock_status,
    gis_status: row.gis_status,
    assurance_level: row.assurance_level,
    participant_id: row.participant_id,
    participant_parent_id: row.participant_parent_id,
    participant_timestamp: row.participant_timestamp,
    system_timestamp: row.system_timestamp.toISOString(),
    archived_at: iso(row.archived_at),
    box_id: row.box_id,
    box_description: row.box_description,
    sight_no: int(row.sight_no),
    sight_year: int(row.sight_year),
    entity_specific_tags: row.entity_specific_tags,
    supplementary_tags: row.supplementary_tags,
    producer_uuid: row.producer_uuid,
    provenance: row.provenance,
    rough: row.rough,
    polished: row.polished,
    rough_check: row.rough_check,
    rough_objective_verification_results: row.rough_objective_verification_results,
    polished_objective_verification_results: row.polished_objective_verification_results,
    grading: active ? [active] : null,
    data_requests: row.data_requests,
    three_d_plan_available: row.three_d_plan_available,
    verification_status: row.verification_status,
    verification_description: row.verification_description,
    verification_status_modified_at: iso(row.verification_status_modified_at),
  };
}

/** The spec's GradingDataView of a stored graded measurement. */
export function toGradingDataView(row: GradedMeasurementRow): GradingDataView {
  return { ...row.data, id: row.id, is_active: row.is_active, is_selectable: row.is_selectable, source: row.source };
}
