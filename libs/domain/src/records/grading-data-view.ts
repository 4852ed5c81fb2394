import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { GradedMeasurementSource, ValidationLevel } from '../enums/grading';
import type { GradingLab } from '../enums/grading-lab';
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
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH, STRING_LIST_MAX_ITEMS } from '../rules/limits';
import { ApiEnums, decimalTextField, gradingIdField, isoTextField } from './api-fields';

/**
 * Graded-measurement data: every GradingDataView member except the four record members, all optional and
 * nullable. Decimal members are decimal text.
 */
export class GradingData {
  // Decimal text
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '1.01' })) carats?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '34.5' })) crown_angle?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true })) crown_height?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '3.98' })) depth?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '61.9' })) depth_percent?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true })) diameter_maximum?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true })) diameter_minimum?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '6.41' })) length?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '40.8' })) pavillion_angle?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true })) pavillion_percent?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '57' })) table_percent?: string | null;
  @ApiPropertyOptional(decimalTextField({ nullable: true, example: '6.45' })) width?: string | null;
  // Enumerated
  @ApiPropertyOptional({ ...ApiEnums.Clarity, nullable: true, example: 'VS1' }) clarity?: Clarity | null;
  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true, example: 'G' }) colour?: Colour | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletCondition, nullable: true }) culet_condition?: CuletCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletSize, nullable: true }) culet_size?: CuletSize | null;
  @ApiPropertyOptional({ ...ApiEnums.CutGrade, nullable: true, example: 'EX' }) cut_grade?: CutGrade | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true }) fancy_colour?: FancyColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true }) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true }) fluorescence_colour?: FluorescenceColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true, example: 'N' }) fluorescence_intensity?: FluorescenceIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleCondition, nullable: true }) girdle_condition?: GirdleCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true }) girdle_thickness_from?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true }) girdle_thickness_to?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.GradingLab, nullable: true, example: 'GIA' }) grading_lab?: GradingLab | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true, example: 'EX' }) polish_quality?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.Shape, nullable: true, example: 'Round' }) shape?: Shape | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true, example: 'VG' }) symmetry?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.ValidationLevel, nullable: true }) validation_level?: ValidationLevel | null;
  // Free strings
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) display_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: '2141438172' }) grader_certificate_number?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH }) grader_clarity_characteristics?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) grader_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH }) grader_report_comments?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'R-2141438172' }) grader_report_number?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'Diamond Grading Report' }) grader_report_type?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) grader_shape?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH }) grading_certificate_description?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) grading_certificate_filename?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) grading_certificate_hash?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH }) measurement_text?: string | null;
  // Other
  /** ISO 8601 date-time. */
  @ApiPropertyOptional(isoTextField({ nullable: true, description: 'ISO 8601 date-time, as the grader or holder sent it.' }))
  graded_date?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    isArray: true,
    nullable: true,
    maxItems: STRING_LIST_MAX_ITEMS,
    items: { type: 'string', maxLength: ID_MAX_LENGTH },
    example: ['GIA 2141438172'],
  })
  grader_inscription_numbers?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: 'A map of strings (at most 16 KiB as JSON).',
    example: { plot: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
  })
  supplementary_files?: Record<string, string> | null;
}

/** GradingDataView: a graded-measurement record. */
export class GradingDataView extends GradingData {
  @ApiProperty(gradingIdField({ description: "The record's id: a UUID for the holder's own records, the lab's grading id for `source: gis`." }))
  id!: string;

  @ApiProperty({ type: 'boolean', description: 'The active record is the one the diamond record shows (`grading`); at most one is active.', example: true })
  is_active!: boolean;

  @ApiProperty({ type: 'boolean', description: 'Whether `select` may make it active.', example: true })
  is_selectable!: boolean;

  @ApiProperty({ ...ApiEnums.GradedMeasurementSource, description: "`gis`: a lab's grading; `user`: added by the holder.", example: 'gis' })
  source!: GradedMeasurementSource;
}

/** Response of `GET {base_url}/diamonds/{diamond_id}/graded-measurements`. */
export class GradedMeasurementsResponse {
  @ApiProperty({ type: () => GradingDataView, isArray: true, description: 'Every graded measurement of the diamond.' })
  results!: GradingDataView[];
}

/**
 * A GIS grading submission after validation, decimals normalised to text (the `data` of
 * `grading.submitted`). The lab must send these members; the rest are optional.
 */
export interface GradingSubmission extends GradingData {
  grader_certificate_number: string;
  grader_report_number: string;
  grading_lab: GradingLab;
  graded_date: string;
  carats: string;
  shape: Shape;
}
