import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import {
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
import type { ValidationLevel } from '../enums/grading';
import { ApiEnums, positiveDecimalInput } from '../records/api-fields';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH, STRING_LIST_MAX_ITEMS, TAGS_MAX_BYTES } from '../rules/limits';
import { IsBoundedJsonObject, IsPositiveDecimal, IsStringMap } from './validators';
import { OptionalEnumMember } from './fields';

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
  @OptionalEnumMember(ApiEnums.Clarity, 'VS1') clarity?: Clarity | null;
  @OptionalEnumMember(ApiEnums.Colour, 'G') colour?: Colour | null;
  @OptionalEnumMember(ApiEnums.CuletCondition) culet_condition?: CuletCondition | null;
  @OptionalEnumMember(ApiEnums.CuletSize) culet_size?: CuletSize | null;
  @OptionalEnumMember(ApiEnums.CutGrade, 'EX') cut_grade?: CutGrade | null;
  @OptionalEnumMember(ApiEnums.FancyColour) fancy_colour?: FancyColour | null;
  @OptionalEnumMember(ApiEnums.FancyColourIntensity) fancy_colour_intensity?: FancyColourIntensity | null;
  @OptionalEnumMember(ApiEnums.FluorescenceColour) fluorescence_colour?: FluorescenceColour | null;
  @OptionalEnumMember(ApiEnums.FluorescenceIntensity) fluorescence_intensity?: FluorescenceIntensity | null;
  @OptionalEnumMember(ApiEnums.GirdleCondition) girdle_condition?: GirdleCondition | null;
  @OptionalEnumMember(ApiEnums.GirdleThickness) girdle_thickness_from?: GirdleThickness | null;
  @OptionalEnumMember(ApiEnums.GirdleThickness) girdle_thickness_to?: GirdleThickness | null;
  @OptionalEnumMember(ApiEnums.Symmetry) polish_quality?: Symmetry | null;
  @OptionalEnumMember(ApiEnums.Symmetry) symmetry?: Symmetry | null;
  @OptionalEnumMember(ApiEnums.ValidationLevel) validation_level?: ValidationLevel | null;

  // Decimal text (carats is declared in the subclasses)
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  crown_angle?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  crown_height?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true, example: '3.98' }))
  @IsOptional()
  @IsPositiveDecimal()
  depth?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  depth_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  diameter_maximum?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  diameter_minimum?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  length?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  pavillion_angle?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  pavillion_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true, example: '57' }))
  @IsOptional()
  @IsPositiveDecimal()
  table_percent?: number | string | null;
  @ApiPropertyOptional(positiveDecimalInput({ nullable: true }))
  @IsOptional()
  @IsPositiveDecimal()
  width?: number | string | null;

  // Free strings: descriptions and comments at most 1,000 characters, the others 256
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  display_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  grader_clarity_characteristics?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grader_colour?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  grader_report_comments?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grader_report_type?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grader_shape?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  grading_certificate_description?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grading_certificate_filename?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  grading_certificate_hash?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  measurement_text?: string | null;

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
  'carats',
  'crown_angle',
  'crown_height',
  'depth',
  'depth_percent',
  'diameter_maximum',
  'diameter_minimum',
  'length',
  'pavillion_angle',
  'pavillion_percent',
  'table_percent',
  'width',
] as const;
export type GradingDecimalField = (typeof GRADING_DECIMAL_FIELDS)[number];
