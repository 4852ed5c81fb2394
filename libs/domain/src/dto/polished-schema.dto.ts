import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsNumber, IsOptional, IsString, MaxLength, Min } from 'class-validator';
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
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { ApiEnums, caratsInput, closedSchema } from '../records/api-fields';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight } from './validators';

const FINITE = { allowNaN: false, allowInfinity: false } as const;

/**
 * Polished diamond data in `POST /diamonds/polished/create` (DESIGN.md "Lifecycle"). Members follow
 * DiamondV1Polished; `carats` and `shape` are required. Unknown fields are rejected. Free strings are at most 256
 * characters; carats at most 100,000 with 3 decimal places.
 */
@ApiSchema(closedSchema('PolishedSchema', 'Polished diamond data: `carats` and `shape` required. Unknown fields are rejected.'))
export class PolishedSchemaDto {
  @ApiProperty(caratsInput({ example: '1.01' }))
  @IsCaratWeight()
  carats!: number | string;

  @ApiProperty({ ...ApiEnums.Shape, example: 'Round' })
  @IsIn(SHAPE_VALUES)
  shape!: Shape;

  @ApiPropertyOptional({ ...ApiEnums.Clarity, nullable: true, example: 'VS1' })
  @IsOptional() @IsIn(CLARITY_VALUES) clarity?: Clarity | null;
  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true, example: 'G' })
  @IsOptional() @IsIn(COLOUR_VALUES) colour?: Colour | null;
  @ApiPropertyOptional({ ...ApiEnums.CutGrade, nullable: true, example: 'EX' })
  @IsOptional() @IsIn(CUT_GRADE_VALUES) cut_grade?: CutGrade | null;
  /** Symmetry scale. */
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true, example: 'EX' })
  @IsOptional() @IsIn(SYMMETRY_VALUES) polish_quality?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.Symmetry, nullable: true, example: 'VG' })
  @IsOptional() @IsIn(SYMMETRY_VALUES) symmetry?: Symmetry | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true })
  @IsOptional() @IsIn(FLUORESCENCE_COLOUR_VALUES) fluorescence_colour?: FluorescenceColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true, example: 'N' })
  @IsOptional() @IsIn(FLUORESCENCE_INTENSITY_VALUES) fluorescence_intensity?: FluorescenceIntensity | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true })
  @IsOptional() @IsIn(FANCY_COLOUR_VALUES) fancy_colour?: FancyColour | null;
  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true })
  @IsOptional() @IsIn(FANCY_COLOUR_INTENSITY_VALUES) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) display_colour?: string | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletCondition, nullable: true })
  @IsOptional() @IsIn(CULET_CONDITION_VALUES) culet_condition?: CuletCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.CuletSize, nullable: true })
  @IsOptional() @IsIn(CULET_SIZE_VALUES) culet_size?: CuletSize | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleCondition, nullable: true })
  @IsOptional() @IsIn(GIRDLE_CONDITION_VALUES) girdle_condition?: GirdleCondition | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true })
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_from?: GirdleThickness | null;
  @ApiPropertyOptional({ ...ApiEnums.GirdleThickness, nullable: true })
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_to?: GirdleThickness | null;

  // Measurements: non-negative finite numbers.
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) crown_angle?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) crown_height?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 3.98 })
  @IsOptional() @IsNumber(FINITE) @Min(0) depth?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 61.9 })
  @IsOptional() @IsNumber(FINITE) @Min(0) depth_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) diameter_maximum?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) diameter_minimum?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 6.41 })
  @IsOptional() @IsNumber(FINITE) @Min(0) length?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) pavillion_angle?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional() @IsNumber(FINITE) @Min(0) pavillion_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 57 })
  @IsOptional() @IsNumber(FINITE) @Min(0) table_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 6.45 })
  @IsOptional() @IsNumber(FINITE) @Min(0) width?: number | null;
}

/** Names of the numeric measurement members of PolishedSchemaDto / DiamondV1Polished. */
export const POLISHED_MEASUREMENT_FIELDS = [
  'crown_angle', 'crown_height', 'depth', 'depth_percent', 'diameter_maximum', 'diameter_minimum', 'length',
  'pavillion_angle', 'pavillion_percent', 'table_percent', 'width',
] as const;
export type PolishedMeasurementField = (typeof POLISHED_MEASUREMENT_FIELDS)[number];
