import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsNumber, IsOptional, IsString, MaxLength, Min } from 'class-validator';
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
import { SHAPE_VALUES, Shape } from '../enums/shape';
import { ApiEnums, caratsInput, closedSchema } from '../records/api-fields';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight } from './validators';
import { OptionalEnumMember } from './fields';

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

  @OptionalEnumMember(ApiEnums.Clarity, 'VS1') clarity?: Clarity | null;
  @OptionalEnumMember(ApiEnums.Colour, 'G') colour?: Colour | null;
  @OptionalEnumMember(ApiEnums.CutGrade, 'EX') cut_grade?: CutGrade | null;
  /** Symmetry scale. */
  @OptionalEnumMember(ApiEnums.Symmetry, 'EX') polish_quality?: Symmetry | null;
  @OptionalEnumMember(ApiEnums.Symmetry, 'VG') symmetry?: Symmetry | null;
  @OptionalEnumMember(ApiEnums.FluorescenceColour) fluorescence_colour?: FluorescenceColour | null;
  @OptionalEnumMember(ApiEnums.FluorescenceIntensity, 'N') fluorescence_intensity?: FluorescenceIntensity | null;
  @OptionalEnumMember(ApiEnums.FancyColour) fancy_colour?: FancyColour | null;
  @OptionalEnumMember(ApiEnums.FancyColourIntensity) fancy_colour_intensity?: FancyColourIntensity | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  fancy_colour_overtone?: string | null;
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  display_colour?: string | null;
  @OptionalEnumMember(ApiEnums.CuletCondition) culet_condition?: CuletCondition | null;
  @OptionalEnumMember(ApiEnums.CuletSize) culet_size?: CuletSize | null;
  @OptionalEnumMember(ApiEnums.GirdleCondition) girdle_condition?: GirdleCondition | null;
  @OptionalEnumMember(ApiEnums.GirdleThickness) girdle_thickness_from?: GirdleThickness | null;
  @OptionalEnumMember(ApiEnums.GirdleThickness) girdle_thickness_to?: GirdleThickness | null;

  // Measurements: non-negative finite numbers.
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  crown_angle?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  crown_height?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 3.98 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  depth?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 61.9 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  depth_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  diameter_maximum?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  diameter_minimum?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 6.41 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  length?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  pavillion_angle?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  pavillion_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 57 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  table_percent?: number | null;
  @ApiPropertyOptional({ type: 'number', minimum: 0, nullable: true, example: 6.45 })
  @IsOptional()
  @IsNumber(FINITE)
  @Min(0)
  width?: number | null;
}

/** Names of the numeric measurement members of PolishedSchemaDto / DiamondV1Polished. */
export const POLISHED_MEASUREMENT_FIELDS = [
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
export type PolishedMeasurementField = (typeof POLISHED_MEASUREMENT_FIELDS)[number];
