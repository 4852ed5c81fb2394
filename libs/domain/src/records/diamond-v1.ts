import type {
  AssuranceLevel,
  CurrentStage,
  DataRequestStatus,
  DataRequestType,
  GisStatus,
  LifecycleState,
  PossessionState,
  UnlockStatus,
  VerificationStatus,
} from '../enums/diamond-state';
import type {
  Clarity,
  Colour,
  CuletCondition,
  CuletSize,
  CutGrade,
  FancyColour,
  FancyColourIntensity,
  FluorescenceColour,
  FluorescenceIntensity,
  GirdleCondition,
  GirdleThickness,
  Symmetry,
} from '../enums/grading-scales';
import type { Shape } from '../enums/shape';
import type { FileRef, GradingCertificateRef, ImageRef, ScanRef, ScanReportRef } from './file-refs';
import type { GradingDataView } from './grading-data-view';

/** Provenance of a diamond: the four observed members plus the country when known. */
export interface DiamondV1Provenance {
  /** Null until known (a manufacturer's rough gets provenance after traceability checks). */
  provenance_name: string | null;
  provenance_type: string | null;
  is_locked: boolean;
  is_country_code_available: boolean;
  /** ISO 3166-1 alpha-2, present when is_country_code_available. */
  country_code?: string | null;
}

/** Rough data of a record: the RoughSchema members; members without data are omitted. */
export interface DiamondV1Rough {
  /** Decimal text. */
  carats?: string;
  colour?: Colour | null;
  display_colour?: string | null;
  fancy_colour?: FancyColour | null;
  fancy_colour_intensity?: FancyColourIntensity | null;
  fancy_colour_overtone?: string | null;
  fluorescence_colour?: FluorescenceColour | null;
  fluorescence_intensity?: FluorescenceIntensity | null;
  model?: string | null;
  quality?: string | null;
  stress?: string | null;
}

/** Polished data of a record (an empty object for a rough diamond); all members optional, nullable. */
export interface DiamondV1Polished {
  /** Decimal text. */
  carats?: string | null;
  clarity?: Clarity | null;
  colour?: Colour | null;
  crown_angle?: number | null;
  crown_height?: number | null;
  depth?: number | null;
  depth_percent?: number | null;
  diameter_maximum?: number | null;
  diameter_minimum?: number | null;
  length?: number | null;
  pavillion_angle?: number | null;
  pavillion_percent?: number | null;
  table_percent?: number | null;
  width?: number | null;
  culet_condition?: CuletCondition | null;
  culet_size?: CuletSize | null;
  cut_grade?: CutGrade | null;
  display_colour?: string | null;
  fancy_colour?: FancyColour | null;
  fancy_colour_intensity?: FancyColourIntensity | null;
  fancy_colour_overtone?: string | null;
  fluorescence_colour?: FluorescenceColour | null;
  fluorescence_intensity?: FluorescenceIntensity | null;
  girdle_condition?: GirdleCondition | null;
  girdle_thickness_from?: GirdleThickness | null;
  girdle_thickness_to?: GirdleThickness | null;
  polish_quality?: Symmetry | null;
  shape?: Shape | null;
  symmetry?: Symmetry | null;
  grading_certificates?: GradingCertificateRef[] | null;
  images?: ImageRef[] | null;
  scan?: ScanRef | null;
  scan_reports?: ScanReportRef[] | null;
  supplementary_files?: FileRef[] | null;
  videos?: FileRef[] | null;
}

/** The spec does not show its members: an opaque record. */
export type ObjectiveVerificationData = Record<string, unknown>;

export interface DiamondDataRequest {
  id: string;
  status: DataRequestStatus;
  data_request_type: DataRequestType;
  created_at: string;
  updated_at: string;
  errors?: string[] | null;
}

/** The diamond record, returned by creation and by search (spec "Diamond record"). */
export interface DiamondV1 {
  // Required in every record
  assurance_level: AssuranceLevel;
  current_stage: CurrentStage;
  diamond_id: string;
  /** UUID; legacy, deprecated. */
  id: string;
  /** Deprecated. */
  is_current: boolean;
  lifecycle_state: LifecycleState;
  /** ISO 8601 date-time. */
  participant_timestamp: string;
  polished: DiamondV1Polished;
  provenance: DiamondV1Provenance;
  possession_state: PossessionState;
  producer_uuid: string;
  rough: DiamondV1Rough;
  rough_check: boolean;
  polished_objective_verification_results: ObjectiveVerificationData[];
  rough_objective_verification_results: ObjectiveVerificationData[];
  /** ISO 8601 date-time. */
  system_timestamp: string;
  unlock_status: UnlockStatus;
  version_id: string;

  // Optional / nullable
  diamond_parent_id?: string | null;
  /** UUID; legacy, deprecated. */
  parent_id?: string | null;
  /** Deprecated. */
  schema_version?: string | null;
  gis_status?: GisStatus | null;
  participant_id?: string | null;
  participant_parent_id?: string | null;
  archived_at?: string | null;
  box_id?: string | null;
  box_description?: string | null;
  sight_no?: number | null;
  sight_year?: number | null;
  entity_specific_tags?: Record<string, unknown> | null;
  supplementary_tags?: Record<string, unknown> | null;
  grading?: GradingDataView[] | null;
  data_requests?: DiamondDataRequest[];
  /** Default false. */
  three_d_plan_available?: boolean;
  /** Deprecated; default `Verified`. */
  verification_status?: VerificationStatus;
  /** Deprecated; default `verified record`. */
  verification_description?: string;
  /** Deprecated. */
  verification_status_modified_at?: string | null;
}

/** Members every DiamondV1 must carry (spec "Required in every record"). */
export const DIAMOND_V1_REQUIRED_FIELDS = [
  'assurance_level', 'current_stage', 'diamond_id', 'id', 'is_current', 'lifecycle_state', 'participant_timestamp',
  'polished', 'provenance', 'possession_state', 'producer_uuid', 'rough', 'rough_check',
  'polished_objective_verification_results', 'rough_objective_verification_results', 'system_timestamp',
  'unlock_status', 'version_id',
] as const satisfies readonly (keyof DiamondV1)[];

/** Search `GET /v1/diamonds/{id}/history` (DESIGN.md "Search"). */
export interface DiamondHistory {
  diamond_id: string;
  /** Parent first, then grandparent, ... */
  ancestors: DiamondV1[];
}
