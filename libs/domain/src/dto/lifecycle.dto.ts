import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, ValidateNested } from 'class-validator';
import { closedSchema, diamondIdField } from '../records/api-fields';
import { SPLIT_MAX_CUTS, SPLIT_MIN_CUTS } from '../rules/limits';
import type { EntitySpecificTags } from './create-rough-diamond.dto';
import { EntitySpecificTagsMember, NestedMember, OptionalTimestampMember, ParticipantIdMember, SupplementaryTagsMember, TimestampMember } from './fields';
import { PolishedSchemaDto } from './polished-schema.dto';
import { RoughSchemaDto } from './rough-schema.dto';
import { IsDiamondIdFormat } from './validators';

/** Body of `POST /diamonds/polished/create` (manufacturer; DESIGN.md "Lifecycle"). */
@ApiSchema(closedSchema('CreatePolishedDiamond', 'The polished diamond cut from a rough diamond you hold. Unknown fields are rejected.'))
export class CreatePolishedDiamondDto {
  /** A rough diamond the caller holds. */
  @ApiProperty(diamondIdField({ description: 'The rough diamond it was cut from (you hold it).' }))
  @IsDiamondIdFormat()
  parent_diamond_id!: string;

  @ParticipantIdMember("Your identifier of the polished diamond: no leading or trailing whitespace; unique among the parent's children.")
  participant_id!: string;

  @TimestampMember('Real-world time of the polishing: ISO 8601 date-time text, answered as sent.')
  participant_timestamp!: string;

  @NestedMember(() => PolishedSchemaDto)
  polished!: PolishedSchemaDto;

  @SupplementaryTagsMember()
  supplementary_tags?: Record<string, unknown> | null;

  @EntitySpecificTagsMember()
  entity_specific_tags?: EntitySpecificTags | null;
}

/** One rough cut of a split. */
@ApiSchema(closedSchema('SplitCut', 'One rough cut of a split. Unknown fields are rejected.'))
export class SplitCutDto {
  @ParticipantIdMember("Your identifier of this cut: no leading or trailing whitespace; distinct among the cuts and unique among the parent's children.")
  participant_id!: string;

  /** When the participant made this cut; defaults to the split's `participant_timestamp`. */
  @OptionalTimestampMember("When this cut was made (ISO 8601); absent or null: the split's `participant_timestamp`.")
  participant_timestamp?: string | null;

  @NestedMember(() => RoughSchemaDto)
  rough!: RoughSchemaDto;
}

/**
 * Body of `POST /diamonds/{diamond_id}/split` (DESIGN.md: `{cuts: [...]}`): 2 to 100 cuts with distinct
 * participant_id values. `participant_timestamp` is optional and defaults to the time the platform received the
 * request.
 */
@ApiSchema(closedSchema('SplitDiamond', 'The rough cuts of a rough diamond you hold. Unknown fields are rejected.'))
export class SplitDiamondDto {
  @OptionalTimestampMember('Real-world time of the split (ISO 8601); absent or null: when the platform received the request.')
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
  @OptionalTimestampMember('Real-world time of the loss (ISO 8601); absent or null: the record keeps its participant_timestamp.')
  participant_timestamp?: string | null;
}
