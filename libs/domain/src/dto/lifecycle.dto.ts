import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
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
import { closedSchema, diamondIdField, entitySpecificTagsField, isoTextField, participantIdField, tagsField } from '../records/api-fields';
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
@ApiSchema(closedSchema('CreatePolishedDiamond', 'The polished diamond cut from a rough diamond you hold. Unknown fields are rejected.'))
export class CreatePolishedDiamondDto {
  /** A rough diamond the caller holds. */
  @ApiProperty(diamondIdField({ description: 'The rough diamond it was cut from (you hold it).' }))
  @IsDiamondIdFormat()
  parent_diamond_id!: string;

  @ApiProperty(participantIdField('Your identifier of the polished diamond: no leading or trailing whitespace; unique among the parent\'s children.'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  @NoSurroundingWhitespace()
  participant_id!: string;

  @ApiProperty(isoTextField({ description: 'Real-world time of the polishing: ISO 8601 date-time text, answered as sent.' }))
  @IsIsoDateTime()
  participant_timestamp!: string;

  @ApiProperty({ type: () => PolishedSchemaDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PolishedSchemaDto)
  polished!: PolishedSchemaDto;

  @ApiPropertyOptional(tagsField({ nullable: true }))
  @IsOptional()
  @IsBoundedJsonObject()
  supplementary_tags?: Record<string, unknown> | null;

  @ApiPropertyOptional(entitySpecificTagsField({ nullable: true }))
  @IsOptional()
  @IsEntitySpecificTags()
  @IsBoundedJsonObject({ requireObject: false })
  entity_specific_tags?: EntitySpecificTags | null;
}

/** One rough cut of a split. */
@ApiSchema(closedSchema('SplitCut', 'One rough cut of a split. Unknown fields are rejected.'))
export class SplitCutDto {
  @ApiProperty(participantIdField('Your identifier of this cut: no leading or trailing whitespace; distinct among the cuts and unique among the parent\'s children.'))
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  @NoSurroundingWhitespace()
  participant_id!: string;

  /** When the participant made this cut; defaults to the split's `participant_timestamp`. */
  @ApiPropertyOptional(isoTextField({ nullable: true, description: 'When this cut was made (ISO 8601); absent or null: the split\'s `participant_timestamp`.' }))
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;

  @ApiProperty({ type: () => RoughSchemaDto })
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
@ApiSchema(closedSchema('SplitDiamond', 'The rough cuts of a rough diamond you hold. Unknown fields are rejected.'))
export class SplitDiamondDto {
  @ApiPropertyOptional(isoTextField({ nullable: true, description: 'Real-world time of the split (ISO 8601); absent or null: when the platform received the request.' }))
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;

  @ApiProperty({
    type: () => SplitCutDto,
    isArray: true,
    minItems: SPLIT_MIN_CUTS,
    maxItems: SPLIT_MAX_CUTS,
    description: `${SPLIT_MIN_CUTS} to ${SPLIT_MAX_CUTS} cuts with distinct \`participant_id\` values; together at most the parent's weight.`,
  })
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
@ApiSchema(closedSchema('DestroyDiamond', 'Optional body of destroy. Unknown fields are rejected.'))
export class DestroyDiamondDto {
  @ApiPropertyOptional(isoTextField({ nullable: true, description: 'Real-world time of the loss (ISO 8601); absent or null: the record keeps its participant_timestamp.' }))
  @IsOptional()
  @IsIsoDateTime()
  participant_timestamp?: string | null;
}
