import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ASSURANCE_LEVEL_VALUES, AssuranceLevel } from '../enums/diamond-state';
import { ApiEnums, closedSchema } from '../records/api-fields';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH } from '../rules/limits';
import { EntitySpecificTagsMember, NestedMember, ParticipantIdMember, SupplementaryTagsMember, TimestampMember } from './fields';
import { RoughSchemaDto } from './rough-schema.dto';
import { IsOptionalNonNull } from './validators';

/** `entity_specific_tags`: extra keys allowed; known key `dit_session_id`. */
export interface EntitySpecificTags {
  dit_session_id?: string | null;
  [key: string]: unknown;
}

/** An integer JavaScript represents exactly (sight numbers and years are stored as bigint). */
const SAFE_INTEGER = { type: 'integer', nullable: true, minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * CreateRoughDiamond: body of `POST {base_url}/diamonds/rough/create`. Unknown fields are rejected. Free-form
 * members are bounded (DESIGN.md "Input bounds"): ids 256 characters, the description 1,000, tag objects 16 KiB
 * as JSON and 8 levels deep.
 */
@ApiSchema(closedSchema('CreateRoughDiamond', 'A rough diamond to register. Unknown fields are rejected.'))
export class CreateRoughDiamondDto {
  /** The producer's box id, or the id of an accepted inbound rough shipment. */
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: ID_MAX_LENGTH,
    description:
      "The source batch: the producer's box id, or the id of an accepted inbound rough shipment (its diamonds' count and weight then bound the registrations).",
    example: 'BOX-2024-0042',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  box_id!: string;

  /** Caller-supplied diamond identifier (ERP/stock id); unique within the box or shipment. */
  @ParticipantIdMember('Your identifier of the diamond (ERP id, stock id): no leading or trailing whitespace; unique within the box or shipment.')
  participant_id!: string;

  @TimestampMember('Real-world time of the registration: ISO 8601 date-time text, answered as sent.')
  participant_timestamp!: string;

  @NestedMember(() => RoughSchemaDto)
  rough!: RoughSchemaDto;

  /** Absent means `assured` (the service applies the default). Not nullable. */
  @ApiPropertyOptional({ ...ApiEnums.AssuranceLevel, default: 'assured', example: 'assured' })
  @IsOptionalNonNull()
  @IsIn(ASSURANCE_LEVEL_VALUES)
  assurance_level?: AssuranceLevel;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: DESCRIPTION_MAX_LENGTH, example: 'Sight 5, 2024' })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  box_description?: string | null;

  @EntitySpecificTagsMember()
  entity_specific_tags?: EntitySpecificTags | null;

  @ApiPropertyOptional({ ...SAFE_INTEGER, description: 'Sight number.', example: 5 })
  @IsOptional()
  @IsInt()
  sight_no?: number | null;

  @ApiPropertyOptional({ ...SAFE_INTEGER, description: 'Sight year.', example: 2024 })
  @IsOptional()
  @IsInt()
  sight_year?: number | null;

  @SupplementaryTagsMember()
  supplementary_tags?: Record<string, unknown> | null;
}
