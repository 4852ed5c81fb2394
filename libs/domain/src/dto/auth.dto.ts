import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import {
  IsISO31661Alpha2,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ROLE_VALUES, Role } from '../enums/participant';
import { ID_MAX_LENGTH, NAME_MAX_LENGTH } from '../rules/limits';

const COUNTRY_CODE_MESSAGE = 'country_code must be an ISO 3166-1 alpha-2 code (two uppercase letters)';

/** Provenance declared for a producer at onboarding. */
export class ProvenanceInputDto {
  @IsString() @IsNotEmpty() @MaxLength(ID_MAX_LENGTH) name!: string;
  @IsString() @IsNotEmpty() @MaxLength(ID_MAX_LENGTH) type!: string;

  /** ISO 3166-1 alpha-2, two uppercase letters. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_CODE_MESSAGE })
  @IsISO31661Alpha2({ message: COUNTRY_CODE_MESSAGE })
  country_code?: string | null;
}

/** Body of `POST {auth_url}/admin/participants`. */
export class OnboardParticipantDto {
  @IsString()
  @Length(1, NAME_MAX_LENGTH, { message: `name must be 1 to ${NAME_MAX_LENGTH} characters` })
  name!: string;

  @IsIn(ROLE_VALUES)
  role!: Role;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProvenanceInputDto)
  provenance?: ProvenanceInputDto | null;
}
