import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ASSURANCE_LEVEL_VALUES, AssuranceLevel } from '../enums/diamond-state';
import { RoughSchemaDto } from './rough-schema.dto';
import {
  IsEntitySpecificTags,
  IsIsoDateTime,
  IsOptionalNonNull,
  IsPlainObject,
  NoSurroundingWhitespace,
} from './validators';

/** `entity_specific_tags`: extra keys allowed; known key `dit_session_id`. */
export interface EntitySpecificTags {
  dit_session_id?: string | null;
  [key: string]: unknown;
}

/** CreateRoughDiamond: body of `POST {base_url}/diamonds/rough/create`. Unknown fields are rejected. */
export class CreateRoughDiamondDto {
  /** The producer's box id, or the id of an accepted inbound rough shipment. */
  @IsString()
  @IsNotEmpty()
  box_id!: string;

  /** Caller-supplied diamond identifier (ERP/stock id); unique within the box or shipment. */
  @IsString()
  @IsNotEmpty()
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
  box_description?: string | null;

  @IsOptional()
  @IsEntitySpecificTags()
  entity_specific_tags?: EntitySpecificTags | null;

  @IsOptional()
  @IsInt()
  sight_no?: number | null;

  @IsOptional()
  @IsInt()
  sight_year?: number | null;

  @IsOptional()
  @IsPlainObject()
  supplementary_tags?: Record<string, unknown> | null;
}
