import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { ASSURANCE_LEVEL_VALUES, AssuranceLevel } from '../enums/diamond-state';
import { DESCRIPTION_MAX_LENGTH, ID_MAX_LENGTH } from '../rules/limits';
import { RoughSchemaDto } from './rough-schema.dto';
import {
  IsBoundedJsonObject,
  IsEntitySpecificTags,
  IsIsoDateTime,
  IsOptionalNonNull,
  NoSurroundingWhitespace,
} from './validators';

/** `entity_specific_tags`: extra keys allowed; known key `dit_session_id`. */
export interface EntitySpecificTags {
  dit_session_id?: string | null;
  [key: string]: unknown;
}

/**
 * CreateRoughDiamond: body of `POST {base_url}/diamonds/rough/create`. Unknown fields are rejected. Free-form
 * members are bounded (DESIGN.md "Input bounds"): ids 256 characters, the description 1,000, tag objects 16 KiB
 * as JSON and 8 levels deep.
 */
export class CreateRoughDiamondDto {
  /** The producer's box id, or the id of an accepted inbound rough shipment. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  box_id!: string;

  /** Caller-supplied diamond identifier (ERP/stock id); unique within the box or shipment. */
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
  @Type(() => RoughSchemaDto)
  rough!: RoughSchemaDto;

  /** Absent means `assured` (the service applies the default). Not nullable. */
  @IsOptionalNonNull()
  @IsIn(ASSURANCE_LEVEL_VALUES)
  assurance_level?: AssuranceLevel;

  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX_LENGTH)
  box_description?: string | null;

  @IsOptional()
  @IsEntitySpecificTags()
  @IsBoundedJsonObject({ requireObject: false })
  entity_specific_tags?: EntitySpecificTags | null;

  @IsOptional()
  @IsInt()
  sight_no?: number | null;

  @IsOptional()
  @IsInt()
  sight_year?: number | null;

  @IsOptional()
  @IsBoundedJsonObject()
  supplementary_tags?: Record<string, unknown> | null;
}
