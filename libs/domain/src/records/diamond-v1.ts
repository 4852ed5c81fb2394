import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH } from '../rules/limits';
import { ApiEnums, dateTimeField, decimalTextField, diamondIdField, entitySpecificTagsField, isoTextField, tagsField, uuidField } from './api-fields';
import { FileRef, GradingCertificateRef, ImageRef } from './file-refs';
import type { ScanRef, ScanReportRef } from './file-refs';
import { GradingDataView } from './grading-data-view';

/** Provenance of a diamond: the four observed members plus the country when known. */
export class DiamondV1Provenance {
  /** Null until known (a manufacturer's rough gets provenance after traceability checks). */
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "Null until known (a manufacturer's rough gets provenance after traceability checks).",
    example: 'Example Mining Co',
  })
  provenance_name!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: 'mine' })
  provenance_type!: string | null;

  @ApiProperty({ type: 'boolean', example: true })
  is_locked!: boolean;

  @ApiProperty({ type: 'boolean', example: true })
  is_country_code_available!: boolean;

  /** ISO 3166-1 alpha-2, present when is_country_code_available. */
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    pattern: '^[A-Z]{2}$',
    description: 'ISO 3166-1 alpha-2; present when `is_country_code_available`.',
    example: 'BW',
  })
  country_code?: string | null;
}

/** Rough data of a record: the RoughSchema members; members without data are omitted. */
export class DiamondV1Rough {
  /** Decimal text. */
  @ApiPropertyOptional(decimalTextField({ description: 'Weight in carats, decimal text.', example: '2.35' }))
  carats?: string;

  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true }) colour?: Colour | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) display_colour?: string | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true }) fancy_colour?: FancyColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true }) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true }) fluorescence_colour?: FluorescenceColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true }) fluorescence_intensity?: FluorescenceIntensity | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) model?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) quality?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'light stress' }) stress?: string | null;
}

const measurement = { type: 'number', minimum: 0, nullable: true } as const;

/** Polished data of a record (an empty object for a rough diamond); all members optional, nullable. */
export class DiamondV1Polished {
  /** Decimal text. */
  @ApiPropertyOptional(decimalTextField({ nullable: true, description: 'Weight in carats, decimal text.', example: '1.01' }))
  carats?: string | null;

  @ApiPropertyOptional({ ...ApiEnums.Clarity, nullable: true }) clarity?: Clarity | null;
  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true }) colour?: Colour | null;
  @ApiPropertyOptional(measurement) crown_angle?: number | null;
  @ApiPropertyOptional(measurement) crown_height?: number | null;
  @ApiPropertyOptional(measurement) depth?: number | null;
  @ApiPropertyOptional(measurement) depth_percent?: number | null;
  @ApiPropertyOptional(measurement) diameter_maximum?: number | null;
  @ApiPropertyOptional(measurement) diameter_minimum?: number | null;
  @ApiPropertyOptional(measurement) length?: number | null;
  @ApiPropertyOptional(measurement) pavillion_angle?: number | null;
  @ApiPropertyOptional(measurement) pavillion_percent?: number | null;
  @ApiPropertyOptional(measurement) table_percent?: number | null;
  @ApiPropertyOptional(measurement) width?: number | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletCondition, nullable: true }) culet_condition?: CuletCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletSize, nullable: true }) culet_size?: CuletSize | null;
  @ApiPropertyOptional({ ...ApiEnums.CutGrade, nullable: true }) cut_grade?: CutGrade | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) display_colour?: string | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true }) fancy_colour?: FancyColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true }) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true }) fluorescence_colour?: FluorescenceColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true }) fluorescence_intensity?: FluorescenceIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleCondition, nullable: true }) girdle_condition?: GirdleCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true }) girdle_thickness_from?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true }) girdle_thickness_to?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true, description: 'Symmetry scale.' }) polish_quality?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.Shape, nullable: true }) shape?: Shape | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true }) symmetry?: Symmetry | null;

  @ApiPropertyOptional({ type: () => GradingCertificateRef, isArray: true, nullable: true })
  grading_certificates?: GradingCertificateRef[] | null;

  @ApiPropertyOptional({ type: () => ImageRef, isArray: true, nullable: true })
  images?: ImageRef[] | null;

  @ApiPropertyOptional({ type: () => FileRef, nullable: true, description: 'The scan (one per diamond; a new upload replaces it).' })
  scan?: ScanRef | null;

  @ApiPropertyOptional({ type: () => FileRef, isArray: true, nullable: true })
  scan_reports?: ScanReportRef[] | null;

  @ApiPropertyOptional({ type: () => FileRef, isArray: true, nullable: true })
  supplementary_files?: FileRef[] | null;

  @ApiPropertyOptional({ type: () => FileRef, isArray: true, nullable: true })
  videos?: FileRef[] | null;
}

/** The spec does not show its members: an opaque record. */
export type ObjectiveVerificationData = Record<string, unknown>;

const objectiveVerification = {
  type: 'array',
  items: { type: 'object', additionalProperties: true },
  description: 'ObjectiveVerificationData entries (members not shown by the spec); empty until a verification ran.',
  example: [],
} as const;

export class DiamondDataRequest {
  @ApiProperty({ type: 'string' }) id!: string;
  @ApiProperty({ ...ApiEnums.DataRequestStatus, example: 'success' }) status!: DataRequestStatus;
  @ApiProperty({ ...ApiEnums.DataRequestType, example: 'three_d_plan' }) data_request_type!: DataRequestType;
  @ApiProperty(dateTimeField()) created_at!: string;
  @ApiProperty(dateTimeField()) updated_at!: string;
  @ApiPropertyOptional({ type: 'string', isArray: true, nullable: true }) errors?: string[] | null;
}

/** The diamond record, returned by creation and by search (spec "Diamond record"). */
export class DiamondV1 {
  // Required in every record
  @ApiProperty({ ...ApiEnums.AssuranceLevel, deprecated: true, description: 'Deprecated in responses.', example: 'assured' })
  assurance_level!: AssuranceLevel;

  @ApiProperty({ ...ApiEnums.CurrentStage, example: 'rough' })
  current_stage!: CurrentStage;

  @ApiProperty(diamondIdField({ description: 'The platform id: lowercase letters and digits, 20 to 98 characters (a lowercased ULID).' }))
  diamond_id!: string;

  /** UUID; legacy, deprecated. */
  @ApiProperty(
    uuidField({
      deprecated: true,
      description:
        'Legacy id, superseded by `diamond_id`. A UUIDv7 (its first 48 bits the time of registration) for diamonds registered since 2026-12-07, a random UUIDv4 before.',
      example: '01a24fd6-e1f9-7b1a-9c4d-2e8f0a6b3c91',
    }),
  )
  id!: string;

  /** Deprecated. */
  @ApiProperty({ type: 'boolean', deprecated: true, description: 'Always true.', example: true })
  is_current!: boolean;

  @ApiProperty({ ...ApiEnums.LifecycleState, example: 'rough' })
  lifecycle_state!: LifecycleState;

  /** ISO 8601 date-time. */
  @ApiProperty(isoTextField({ description: 'Real-world time of the last change, as the participant sent it (ISO 8601).' }))
  participant_timestamp!: string;

  @ApiProperty({ type: () => DiamondV1Polished, description: 'Polished data; an empty object for a rough diamond.' })
  polished!: DiamondV1Polished;

  @ApiProperty({ type: () => DiamondV1Provenance })
  provenance!: DiamondV1Provenance;

  @ApiProperty({ ...ApiEnums.PossessionState, description: '`in_transit` while in a shipment the recipient has not answered.', example: 'held' })
  possession_state!: PossessionState;

  @ApiProperty(uuidField({ description: 'The producer that first registered the diamond (its participant id).' }))
  producer_uuid!: string;

  @ApiProperty({ type: () => DiamondV1Rough, description: 'Rough data; members without data are omitted.' })
  rough!: DiamondV1Rough;

  @ApiProperty({
    type: 'boolean',
    description: 'True once rough objective verification has passed; always false before the diamond is unlocked.',
    example: false,
  })
  rough_check!: boolean;

  @ApiProperty(objectiveVerification)
  polished_objective_verification_results!: ObjectiveVerificationData[];

  @ApiProperty(objectiveVerification)
  rough_objective_verification_results!: ObjectiveVerificationData[];

  /** ISO 8601 date-time. */
  @ApiProperty(dateTimeField({ description: 'When the platform recorded this version.' }))
  system_timestamp!: string;

  @ApiProperty({ ...ApiEnums.UnlockStatus, description: '`locked` until a transfer or the unlock call; unlocked for good.', example: 'locked' })
  unlock_status!: UnlockStatus;

  @ApiProperty({ type: 'string', description: 'A new unique value on every change of the record.', example: '01j0k6v9a1b2c3d4e5f6g7h8j9' })
  version_id!: string;

  // Optional / nullable
  @ApiPropertyOptional(diamondIdField({ nullable: true, description: 'The diamond it was cut from, or null.', example: null }))
  diamond_parent_id?: string | null;

  /** UUID; legacy, deprecated. */
  @ApiPropertyOptional(uuidField({ nullable: true, deprecated: true, description: 'Legacy parent id, superseded by `diamond_parent_id`.', example: null }))
  parent_id?: string | null;

  /** Deprecated. */
  @ApiPropertyOptional({ type: 'string', nullable: true, deprecated: true, example: '1' })
  schema_version?: string | null;

  @ApiPropertyOptional({ ...ApiEnums.GisStatus, nullable: true, description: 'Lab eligibility (from the grading integration), or null.', example: null })
  gis_status?: GisStatus | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: ID_MAX_LENGTH,
    description: "The participant's own identifier of the diamond (ERP/stock id).",
    example: 'STOCK-000123',
  })
  participant_id?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, description: 'The participant identifier of the parent.', example: null })
  participant_parent_id?: string | null;

  @ApiPropertyOptional(dateTimeField({ nullable: true, example: null }))
  archived_at?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'BOX-2024-0042' })
  box_id?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH, example: 'Sight 5, 2024' })
  box_description?: string | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 5 })
  sight_no?: number | null;

  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 2024 })
  sight_year?: number | null;

  @ApiPropertyOptional(entitySpecificTagsField({ nullable: true }))
  entity_specific_tags?: Record<string, unknown> | null;

  @ApiPropertyOptional(tagsField({ nullable: true }))
  supplementary_tags?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: () => GradingDataView,
    isArray: true,
    nullable: true,
    maxItems: 1,
    description: 'The active graded measurement (one element), or null when none is active.',
  })
  grading?: GradingDataView[] | null;

  @ApiPropertyOptional({ type: () => DiamondDataRequest, isArray: true })
  data_requests?: DiamondDataRequest[];

  /** Default false. */
  @ApiPropertyOptional({ type: 'boolean', default: false, example: false })
  three_d_plan_available?: boolean;

  /** Deprecated; default `Verified`. */
  @ApiPropertyOptional({ ...ApiEnums.VerificationStatus, deprecated: true, default: 'Verified', example: 'Verified' })
  verification_status?: VerificationStatus;

  /** Deprecated; default `verified record`. */
  @ApiPropertyOptional({ type: 'string', deprecated: true, default: 'verified record', example: 'verified record' })
  verification_description?: string;

  /** Deprecated. */
  @ApiPropertyOptional(dateTimeField({ nullable: true, deprecated: true, example: null }))
  verification_status_modified_at?: string | null;
}

/** Members every DiamondV1 must carry (spec "Required in every record"). */
export const DIAMOND_V1_REQUIRED_FIELDS = [
  'assurance_level',
  'current_stage',
  'diamond_id',
  'id',
  'is_current',
  'lifecycle_state',
  'participant_timestamp',
  'polished',
  'provenance',
  'possession_state',
  'producer_uuid',
  'rough',
  'rough_check',
  'polished_objective_verification_results',
  'rough_objective_verification_results',
  'system_timestamp',
  'unlock_status',
  'version_id',
] as const satisfies readonly (keyof DiamondV1)[];

/** Search `GET /v1/diamonds/{id}/history` (DESIGN.md "Search"). */
export class DiamondHistory {
  @ApiProperty(diamondIdField({ description: 'The diamond asked about.' }))
  diamond_id!: string;

  /** Parent first, then grandparent, ... */
  @ApiProperty({ type: () => DiamondV1, isArray: true, description: 'Its ancestors, nearest first: parent, grandparent, ...; empty for an original rough.' })
  ancestors!: DiamondV1[];
}
