import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ID_MAX_LENGTH, SPLIT_MAX_CUTS, SPLIT_MIN_CUTS } from '../rules/limits';
import type { EntitySpecificTags } from './create-rough-diamond.dto';
import { PolishedSchemaDto } from './polished-schema.dto';
import { RoughSchemaDto } from './rough-schema.dto';
import {
  IsDiamondIdFormat,
  IsBoundedJsonObject,
  IsEntitySpecificTags,
  IsIsoDateTime,
  NoSurroundingWhitespace,
} from './validators';

/** Body of `POST /diamonds/polished/create` (manufacturer; DESIGN.md "Lifecycle"). */
export class CreatePolishedDiamondDto {
  /** A rough diamond the caller holds. */
  @IsDiamondIdFormat()
  parent_diamond_id!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  @NoSurroundingWhitespace()
  participant_id!: string;

  @IsIsoDateTime()
  participant_timestamp!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PolishedSchemaDto)
  polished!: PolishedSchemaDto;

  @IsOptional()
  @IsBoundedJsonObject()
  supplementary_tags?: Record<string, unknown> | null;

  @IsOptional()
  @IsEntitySpecificTags()
  @IsBoundedJsonObject({ requireObject: false })
  entity_specific_tags?: EntitySpecificTags | null;
}

/** One rough cut of a split. */
export class SplitCutDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  @NoSurroundingWhitespace()
  participant_id!: string;

  /** When the participant made this cut; defaults to the split's `participant_timestamp`. */
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => RoughSchemaDto)
  rough!: RoughSchemaDto;
}

/**
 * Body of `POST /diamonds/{diamond_id}/split` (DESIGN.md: `{cuts: [...]}`): 2 to 100 cuts with distinct
 * participant_id values. `participant_timestamp` is optional and defaults to the time the platform received the
 * request.
 */
export class SplitDiamondDto {
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;

  @IsArray()
  @ArrayMinSize(SPLIT_MIN_CUTS, { message: `cuts must contain at least ${SPLIT_MIN_CUTS} entries` })
  @ArrayMaxSize(SPLIT_MAX_CUTS, { message: `cuts must contain at most ${SPLIT_MAX_CUTS} entries` })
  @ArrayUnique((cut: SplitCutDto | undefined) => cut?.participant_id ?? Symbol('no participant_id'), {
    message: 'cuts must have distinct participant_id values',
  })
  @ValidateNested({ each: true })
  @Type(() => SplitCutDto)
  cuts!: SplitCutDto[];
}

/** Body of `POST /diamonds/{diamond_id}/destroy` (may be empty). */
export class DestroyDiamondDto {
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;
}
