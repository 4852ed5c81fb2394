import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import {
  COLOUR_VALUES,
  Colour,
  FANCY_COLOUR_INTENSITY_VALUES,
  FANCY_COLOUR_VALUES,
  FLUORESCENCE_COLOUR_VALUES,
  FLUORESCENCE_INTENSITY_VALUES,
  FancyColour,
  FancyColourIntensity,
  FluorescenceColour,
  FluorescenceIntensity,
} from '../enums/grading-scales';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight } from './validators';

/**
 * RoughSchema: rough diamond data in a request. Unknown fields are rejected; only `carats` is required. Free strings
 * are at most 256 characters.
 */
export class RoughSchemaDto {
  /** Number > 0 or decimal text > 0 ("1.25"), at most 100,000 with 3 decimal places; stored as decimal text. */
  @IsCaratWeight()
  carats!: number | string;

  /** Single letter D to Z. */
  @IsOptional()
  @IsIn(COLOUR_VALUES)
  colour?: Colour | null;

  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  display_colour?: string | null;

  @IsOptional()
  @IsIn(FANCY_COLOUR_VALUES)
  fancy_colour?: FancyColour | null;

  @IsOptional()
  @IsIn(FANCY_COLOUR_INTENSITY_VALUES)
  fancy_colour_intensity?: FancyColourIntensity | null;

  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  fancy_colour_overtone?: string | null;

  @IsOptional()
  @IsIn(FLUORESCENCE_COLOUR_VALUES)
  fluorescence_colour?: FluorescenceColour | null;

  @IsOptional()
  @IsIn(FLUORESCENCE_INTENSITY_VALUES)
  fluorescence_intensity?: FluorescenceIntensity | null;

  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  model?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  quality?: string | null;

  /** e.g. tension, light stress. */
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  stress?: string | null;
}
