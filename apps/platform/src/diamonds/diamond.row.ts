import type {
  AssuranceLevel,
  CurrentStage,
  DiamondDataRequest,
  DiamondV1Polished,
  DiamondV1Provenance,
  DiamondV1Rough,
  GisStatus,
  LifecycleState,
  ObjectiveVerificationData,
  PossessionState,
  UnlockStatus,
  VerificationStatus,
} from '@dtp/domain';

/**
 * One row of `diamonds` as this service holds it (snake_case = column names). Never an API body: the mapper
 * (diamond.mapper.ts) turns it into a DiamondV1.
 */
export interface DiamondRow {
  diamond_id: string;
  legacy_id: string;
  version_id: string;
  /** Grows by one on every change; the outbox envelope's `revision`. pg returns bigint as text. */
  revision: number | string;
  /** The participant that registered (or created) the diamond; the only one who may delete it. */
  uploader_id: string;
  /** The participant holding it now: attaches files, unlocks, manages graded measurements, ships it. */
  holder_id: string;
  producer_uuid: string;
  /** Whose box `box_id` names (uniqueness of participant_id is per (box_scope, box_id)). */
  box_scope: string | null;
  box_id: string | null;
  participant_id: string | null;
  diamond_parent_id: string | null;
  participant_parent_id: string | null;
  legacy_parent_id: string | null;
  lifecycle_state: LifecycleState;
  current_stage: CurrentStage;
  possession_state: PossessionState;
  unlock_status: UnlockStatus;
  assurance_level: AssuranceLevel;
  rough_check: boolean;
  /** Provenance came from token claims because the participant's onboarding event had not arrived yet. */
  provenance_pending: boolean;
  box_description: string | null;
  sight_no: number | string | null;
  sight_year: number | string | null;
  participant_timestamp: string;
  system_timestamp: Date;
  created_at: Date;
  archived_at: Date | null;
  gis_status: GisStatus | null;
  three_d_plan_available: boolean;
  verification_status: VerificationStatus;
  verification_description: string;
  verification_status_modified_at: Date | null;
  rough: DiamondV1Rough;
  polished: DiamondV1Polished;
  provenance: DiamondV1Provenance;
  entity_specific_tags: Record<string, unknown> | null;
  supplementary_tags: Record<string, unknown> | null;
  data_requests: DiamondDataRequest[];
  rough_objective_verification_results: ObjectiveVerificationData[];
  polished_objective_verification_results: ObjectiveVerificationData[];
  /** entry_hash of the diamond's latest custody log entry (the next entry's prev_entry_hash); null before its first. */
  custody_head: string | null;
}

/** Columns in INSERT order (the repository builds its statements from this list). */
export const DIAMOND_COLUMNS = [
  'diamond_id', 'legacy_id', 'version_id', 'revision', 'uploader_id', 'holder_id', 'producer_uuid', 'box_scope',
  'box_id', 'participant_id', 'diamond_parent_id', 'participant_parent_id', 'legacy_parent_id', 'lifecycle_state',
  'current_stage', 'possession_state', 'unlock_status', 'assurance_level', 'rough_check', 'provenance_pending',
  'box_description', 'sight_no', 'sight_year', 'participant_timestamp', 'system_timestamp', 'created_at',
  'archived_at', 'gis_status', 'three_d_plan_available', 'verification_status', 'verification_description',
  'verification_status_modified_at', 'rough', 'polished', 'provenance', 'entity_specific_tags', 'supplementary_tags',
  'data_requests', 'rough_objective_verification_results', 'polished_objective_verification_results', 'custody_head',
] as const satisfies readonly (keyof DiamondRow)[];

/** JSONB columns: serialised with JSON.stringify on the way in. */
export const DIAMOND_JSON_COLUMNS: ReadonlySet<keyof DiamondRow> = new Set([
  'rough', 'polished', 'provenance', 'entity_specific_tags', 'supplementary_tags', 'data_requests',
  'rough_objective_verification_results', 'polished_objective_verification_results',
]);
