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
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight } from './validators';

const FINITE = { allowNaN: false, allowInfinity: false } as const;

/**
 * Polished diamond data in `POST /diamonds/polished/create` (DESIGN.md "Lifecycle"). Members follow
 * DiamondV1Polished; `carats` and `shape` are required. Unknown fields are rejected. Free strings are at most 256
 * characters; carats at most 100,000 with 3 decimal places.
 */
export class PolishedSchemaDto {
  @IsCaratWeight()
  carats!: number | string;

  @IsIn(SHAPE_VALUES)
  shape!: Shape;

  @IsOptional() @IsIn(CLARITY_VALUES) clarity?: Clarity | null;
  @IsOptional() @IsIn(COLOUR_VALUES) colour?: Colour | null;
  @IsOptional() @IsIn(CUT_GRADE_VALUES) cut_grade?: CutGrade | null;
  /** Symmetry scale. */
  @IsOptional() @IsIn(SYMMETRY_VALUES) polish_quality?: Symmetry | null;
  @IsOptional() @IsIn(SYMMETRY_VALUES) symmetry?: Symmetry | null;
  @IsOptional() @IsIn(FLUORESCENCE_COLOUR_VALUES) fluorescence_colour?: FluorescenceColour | null;
  @IsOptional() @IsIn(FLUORESCENCE_INTENSITY_VALUES) fluorescence_intensity?: FluorescenceIntensity | null;
  @IsOptional() @IsIn(FANCY_COLOUR_VALUES) fancy_colour?: FancyColour | null;
  @IsOptional() @IsIn(FANCY_COLOUR_INTENSITY_VALUES) fancy_colour_intensity?: FancyColourIntensity | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) fancy_colour_overtone?: string | null;
  @IsOptional() @IsString() @MaxLength(ID_MAX_LENGTH) display_colour?: string | null;
  @IsOptional() @IsIn(CULET_CONDITION_VALUES) culet_condition?: CuletCondition | null;
  @IsOptional() @IsIn(CULET_SIZE_VALUES) culet_size?: CuletSize | null;
  @IsOptional() @IsIn(GIRDLE_CONDITION_VALUES) girdle_condition?: GirdleCondition | null;
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_from?: GirdleThickness | null;
  @IsOptional() @IsIn(GIRDLE_THICKNESS_VALUES) girdle_thickness_to?: GirdleThickness | null;

  // Measurements: non-negative finite numbers.
  @IsOptional() @IsNumber(FINITE) @Min(0) crown_angle?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) crown_height?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) depth?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) depth_percent?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) diameter_maximum?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) diameter_minimum?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) length?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) pavillion_angle?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) pavillion_percent?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) table_percent?: number | null;
  @IsOptional() @IsNumber(FINITE) @Min(0) width?: number | null;
}

/** Names of the numeric measurement members of PolishedSchemaDto / DiamondV1Polished. */
export const POLISHED_MEASUREMENT_FIELDS = [
  'crown_angle', 'crown_height', 'depth', 'depth_percent', 'diameter_maximum', 'diameter_minimum', 'length',
  'pavillion_angle', 'pavillion_percent', 'table_percent', 'width',
] as const;
export type PolishedMeasurementField = (typeof POLISHED_MEASUREMENT_FIELDS)[number];
