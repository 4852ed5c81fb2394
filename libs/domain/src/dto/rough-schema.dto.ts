import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
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
import { ApiEnums, caratsInput, closedSchema } from '../records/api-fields';
import { ID_MAX_LENGTH } from '../rules/limits';
import { IsCaratWeight } from './validators';

/**
 * RoughSchema: rough diamond data in a request. Unknown fields are rejected; only `carats` is required. Free strings
 * are at most 256 characters.
 */
@ApiSchema(closedSchema('RoughSchema', 'Rough diamond data. Unknown fields are rejected; only `carats` is required.'))
export class RoughSchemaDto {
  /** Number > 0 or decimal text > 0 ("1.25"), at most 100,000 with 3 decimal places; stored as decimal text. */
  @ApiProperty(caratsInput({ example: '2.35' }))
  @IsCaratWeight()
  carats!: number | string;

  /** Single letter D to Z. */
  @ApiPropertyOptional({ ...ApiEnums.Colour, nullable: true, example: 'G' })
  @IsOptional()
  @IsIn(COLOUR_VALUES)
  colour?: Colour | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'Fancy Vivid Yellow' })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  display_colour?: string | null;

  @ApiPropertyOptional({ ...ApiEnums.FancyColour, nullable: true })
  @IsOptional()
  @IsIn(FANCY_COLOUR_VALUES)
  fancy_colour?: FancyColour | null;

  @ApiPropertyOptional({ ...ApiEnums.FancyColourIntensity, nullable: true })
  @IsOptional()
  @IsIn(FANCY_COLOUR_INTENSITY_VALUES)
  fancy_colour_intensity?: FancyColourIntensity | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  fancy_colour_overtone?: string | null;

  @ApiPropertyOptional({ ...ApiEnums.FluorescenceColour, nullable: true })
  @IsOptional()
  @IsIn(FLUORESCENCE_COLOUR_VALUES)
  fluorescence_colour?: FluorescenceColour | null;

  @ApiPropertyOptional({ ...ApiEnums.FluorescenceIntensity, nullable: true, example: 'N' })
  @IsOptional()
  @IsIn(FLUORESCENCE_INTENSITY_VALUES)
  fluorescence_intensity?: FluorescenceIntensity | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  model?: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  quality?: string | null;

  /** e.g. tension, light stress. */
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: 'light stress' })
  @IsOptional()
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  stress?: string | null;
}
