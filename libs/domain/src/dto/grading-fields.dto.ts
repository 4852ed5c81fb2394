import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  CLARITY_VALUES,
  COLOUR_VALUES,
  CULET_CONDITION_VALUES,
  CULET_SIZE_VALUES,
  CUT_GRADE_VALUES,
  Clarity,
  Colour,
  CuletCondition,
  CuletSize,
  CutGrade,
  FANCY_COLOUR_INTENSITY_VALUES,
  FANCY_COLOUR_VALUES,
  FLUORESCENCE_COLOUR_VALUES,
  FLUORESCENCE_INTENSITY_VALUES,
  FancyColour,
  FancyColourIntensity,
  FluorescenceColour,
  FluorescenceIntensity,
  GIRDLE_CONDITION_VALUES,
  GIRDLE_THICKNESS_VALUES,
  GirdleCondition,
  GirdleThickness,
  SYMMETRY_VALUES,
  Symmetry,
} from '../enums/grading-scales';
import { VALIDATION_LEVEL_VALUES, ValidationLevel } from '../enums/grading';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH, STRING_LIST_MAX_ITEMS } from '../rules/limits';
import { IsBoundedJsonObject, IsPositiveDecimal, IsStringMap } from './validators';

/**
 * GradingDataView members that are optional and nullable in BOTH the holder's `source: user` record
 * (UserGradedMeasurementDto) and the lab's GIS submission (GradingSubmissionDto). The members whose
 * required-ness differs (carats, shape, grading_lab, graded_date, grader_certificate_number,
 * grader_report_number) are declared in the subclasses: class-validator merges inherited decorators,
 * so a member cannot be optional in a base class and required in a subclass.
 *
 * Decimal-text members accept a positive number or positive decimal text; services store them as
 * decimal text (rules/decimal.ts `toDecimalText`).
 */
export abstract class GradingFieldsDto {
  // Enumerated
  @IsOptional() @IsIn(CLARITY_VALUES) clarity?: Clarity | null;
  @IsOptional() @IsIn(COLOUR_VALUES) colour?: Colour | null;
  @IsOptional() @IsIn(CULET_CONDITION_VALUES) culet_condition?: CuletCondition | null;
  @IsOptional() @IsIn(CULET_SIZE_VALUES) culet_size?: CuletSize | null;
  @IsOptional() @IsIn(CUT_GRADE_VALUES) cut_grade?: CutGrade | null;
  @IsOptional() @IsIn(FANCY_COLOUR_VALUES) fancy_colour?: FancyColour | null;
  @IsOptional() @IsIn(FANCY_COLOUR_INTENSITY_VALUES) fancy_colour_intensity?: FancyColourIntensity | null;
  @IsOptional() @IsIn(FLUORESCENCE_COLOUR_VALUES) fluorescence_colour?: FluorescenceColour | null;
  @IsOptional() @IsIn(FLUORESCENCE_INTENSITY_VALUES) fluorescence_intensity?: FluorescenceIntensity | null;
  @IsOptional() @IsIn(GIRDLE_CONDITION_VALUES) girdle_condition?: GirdleCondition | null;
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_from?: GirdleThickness | null;
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_to?: GirdleThickness | null;
  @IsOptional() @IsIn(SYMMETRY_VALUES) polish_quality?: Symmetry | null;
  @IsOptional() @IsIn(SYMMETRY_VALUES) symmetry?: Symmetry | null;
  @IsOptional() @IsIn(VALIDATION_LEVEL_VALUES) validation_level?: ValidationLevel | null;

  // Decimal text (carats is declared in the subclasses)
  @IsOptional() @IsPositiveDecimal() crown_angle?: number | string | null;
  @IsOptional() @IsPositiveDecimal() crown_height?: number | string | null;
  @IsOptional() @IsPositiveDecimal() depth?: number | string | null;
  @IsOptional() @IsPositiveDecimal() depth_percent?: number | string | null;
  @IsOptional() @IsPositiveDecimal() diameter_maximum?: number | string | null;
  @IsOptional() @IsPositiveDecimal() diameter_minimum?: number | string | null;
  @IsOptional() @IsPositiveDecimal() length?: number | string | null;
  @IsOptional() @IsPositiveDecimal() pavillion_angle?: number | string | null;
  @IsOptional() @IsPositiveDecimal() pavillion_percent?: number | string | null;
  @IsOptional() @IsPositiveDecimal() table_percent?: number | string | null;
  @IsOptional() @IsPositiveDecimal() width?: number | string | null;

  // Free strings: descriptions and comments at most 1,000 characters, the others 256
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) display_colour?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) fancy_colour_overtone?: string | null;
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grader_clarity_characteristics?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_colour?: string | null;
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grader_report_comments?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_report_type?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_shape?: string | null;
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grading_certificate_description?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grading_certificate_filename?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grading_certificate_hash?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) measurement_text?: string | null;

  // Structured
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(STRING_LIST_MAX_ITEMS, { message: `grader_inscription_numbers must contain at most ${STRING_LIST_MAX_ITEMS} entries` })
  @IsString({ each: true })
  @MaxLength(ID_MAX_LENGTH, { each: true })
  grader_inscription_numbers?: string[] | null;

  /** A map of strings, at most 16 KiB as JSON. */
  @IsOptional()
  @IsStringMap()
  @IsBoundedJsonObject({ requireObject: false })
  supplementary_files?: Record<string, string> | null;
}

/** Names of the decimal-text members of GradingDataView (all stored as decimal text). */
export const GRADING_DECIMAL_FIELDS = [
  'carats', 'crown_angle', 'crown_height', 'depth', 'depth_percent', 'diameter_maximum', 'diameter_minimum',
  'length', 'pavillion_angle', 'pavillion_percent', 'table_percent', 'width',
] as const;
export type GradingDecimalField = (typeof GRADING_DECIMAL_FIELDS)[number];
