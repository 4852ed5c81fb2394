import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { ProvenanceInputDto } from '../../dto/auth.dto';
import { ROLE_VALUES, Role } from '../../enums/participant';

/** `participant.onboarded` on auth.participants.v1; key = participant_id. */
export interface ParticipantOnboardedData {
  participant_id: string;
  name: string;
  role: Role;
  provenance: { name: string; type: string; country_code?: string | null } | null;
  /** Base address of the participant's instance (used as a shipment's `sender`), when known. */
  base_url?: string | null;
}

export class ParticipantOnboardedPayload implements ParticipantOnboardedData {
  @IsUUID('all') participant_id!: string;
  @IsString() @IsNotEmpty() name!: string;
  @IsIn(ROLE_VALUES) role!: Role;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProvenanceInputDto)
  provenance!: ProvenanceInputDto | null;

  @IsOptional() @IsString() base_url?: string | null;
}
