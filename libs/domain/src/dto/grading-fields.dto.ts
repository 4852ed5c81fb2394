import { ApiPropertyOptional } from '@nestjs/swagger';
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
import { ApiEnums, positiveDecimalInput } from '../records/api-fields';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH, STRING_LIST_MAX_ITEMS, TAGS_MAX_BYTES } from '../rules/limits';
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
  @ApiPropertyOptional({ ...ApiEnums.Clarity, nullable: true, example: 'VS1' })
  @IsOptional() @IsIn(CLARITY_VALUES) clarity?: Clarity | null;
  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true, example: 'G' })
  @IsOptional() @IsIn(COLOUR_VALUES) colour?: Colour | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletCondition, nullable: true })
  @IsOptional() @IsIn(CULET_CONDITION_VALUES) culet_condition?: CuletCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletSize, nullable: true })
  @IsOptional() @IsIn(CULET_SIZE_VALUES) culet_size?: CuletSize | null;
  @ApiPropertyOptional({ ...ApiEnums.CutGrade, nullable: true, example: 'EX' })
  @IsOptional() @IsIn(CUT_GRADE_VALUES) cut_grade?: CutGrade | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true })
  @IsOptional() @IsIn(FANCY_COLOUR_VALUES) fancy_colour?: FancyColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true })
  @IsOptional() @IsIn(FANCY_COLOUR_INTENSITY_VALUES) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true })
  @IsOptional() @IsIn(FLUORESCENCE_COLOUR_VALUES) fluorescence_colour?: FluorescenceColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true })
  @IsOptional() @IsIn(FLUORESCENCE_INTENSITY_VALUES) fluorescence_intensity?: FluorescenceIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleCondition, nullable: true })
  @IsOptional() @IsIn(GIRDLE_CONDITION_VALUES) girdle_condition?: GirdleCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true })
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_from?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true })
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_to?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true })
  @IsOptional() @IsIn(SYMMETRY_VALUES) polish_quality?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true })
  @IsOptional() @IsIn(SYMMETRY_VALUES) symmetry?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.ValidationLevel, nullable: true })
  @IsOptional() @IsIn(VALIDATION_LEVEL_VALUES) validation_level?: ValidationLevel | null;

  // Decimal text (carats is declared in the subclasses)
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() crown_angle?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() crown_height?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true, example: '3.98' }))
  @IsOptional() @IsPositiveDecimal() depth?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() depth_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() diameter_maximum?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() diameter_minimum?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() length?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() pavillion_angle?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() pavillion_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true, example: '57' }))
  @IsOptional() @IsPositiveDecimal() table_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional() @IsPositiveDecimal() width?: number | string | null;

  // Free strings: descriptions and comments at most 1,000 characters, the others 256
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) display_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grader_clarity_characteristics?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grader_report_comments?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_report_type?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grader_shape?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(DESCRIPTION_MAX_LENGTH) grading_certificate_description?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grading_certificate_filename?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) grading_certificate_hash?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) measurement_text?: string | null;

  // Structured
  @ApiPropertyOptional({
    type: 'string',
    isArray: true,
    nullable: true,
    maxItems: STRING_LIST_MAX_ITEMS,
    items: { type: 'string', maxLength: ID_MAX_LENGTH },
    example: ['GIA 2141438172'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(STRING_LIST_MAX_ITEMS, { message: `grader_inscription_numbers must contain at most ${STRING_LIST_MAX_ITEMS} entries` })
  @IsString({ each: true })
  @MaxLength(ID_MAX_LENGTH, { each: true })
  grader_inscription_numbers?: string[] | null;

  /** A map of strings, at most 16 KiB as JSON. */
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    description: `A map of strings (at most ${TAGS_MAX_BYTES} bytes as JSON).`,
  })
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
