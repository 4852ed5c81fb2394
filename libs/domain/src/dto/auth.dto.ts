import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, ApiSchemaOptions, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsISO31661Alpha2, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { ROLE_VALUES, Role } from '../enums/participant';
import { ID_MAX_LENGTH, NAME_MAX_LENGTH } from '../rules/limits';
import { CERTIFICATE_PEM_MAX_LENGTH, MTLS_INTEGRATION_CUTOFF } from '../rules/mtls';
import { IsInstantOrDate, IsOptionalNonNull } from './validators';

/** A request body's schema: named, and closed (the validation pipe refuses unknown members with 422). */
const requestSchema = (name: string, description: string) => ({ name, description, additionalProperties: false }) as ApiSchemaOptions;

const COUNTRY_CODE_MESSAGE = 'country_code must be an ISO 3166-1 alpha-2 code (two uppercase letters)';

/** Provenance declared for a producer at onboarding. */
@ApiSchema(requestSchema('ProvenanceInput', 'The provenance a producer declares at onboarding.'))
export class ProvenanceInputDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, example: 'Karowe' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  name!: string;

  @ApiProperty({ type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH, example: 'mine' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(ID_MAX_LENGTH)
  type!: string;

  /** ISO 3166-1 alpha-2, two uppercase letters. */
  @ApiPropertyOptional({ type: 'string', nullable: true, pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 (an assigned code).', example: 'BW' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: COUNTRY_CODE_MESSAGE })
  @IsISO31661Alpha2({ message: COUNTRY_CODE_MESSAGE })
  country_code?: string | null;
}

/** Body of `POST {auth_url}/admin/participants`. */
@ApiSchema(requestSchema('OnboardParticipantRequest', 'A participant to onboard, with its one role. Unknown members are refused.'))
@ApiExtraModels(ProvenanceInputDto)
export class OnboardParticipantDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: NAME_MAX_LENGTH, example: 'Karowe Mining' })
  @IsString()
  @Length(1, NAME_MAX_LENGTH, { message: `name must be 1 to ${NAME_MAX_LENGTH} characters` })
  name!: string;

  @ApiProperty({ enum: ROLE_VALUES, enumName: 'Role', example: 'producer' })
  @IsIn(ROLE_VALUES)
  role!: Role;

  @ApiPropertyOptional({
    description: 'Provenance declared for a producer.',
    oneOf: [{ $ref: getSchemaPath(ProvenanceInputDto) }, { type: 'null' }],
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProvenanceInputDto)
  provenance?: ProvenanceInputDto | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    description:
      "When the participant's integration started: a date-time with a time zone, or a date (midnight UTC); default: now. " +
      'A week or ordinal date, a bare year or a time without a zone is refused (422). Only participants whose integration ' +
      `started before ${MTLS_INTEGRATION_CUTOFF} may use mutual TLS (legacy client certificates); everyone else gets OAuth 2.0 credentials only.`,
    example: '2021-05-01T00:00:00Z',
  })
  @IsOptionalNonNull()
  @IsInstantOrDate()
  integration_started_at?: string;
}

/** Body of `POST {auth_url}/admin/participants/{participant_id}/certificates`. */
@ApiSchema(requestSchema('RegisterCertificateRequest', "A legacy participant's X.509 client certificate (PEM). Unknown members are refused."))
export class RegisterCertificateDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: CERTIFICATE_PEM_MAX_LENGTH,
    description: 'One X.509 certificate in PEM (`-----BEGIN CERTIFICATE-----` ...), unexpired; its key stays with the participant.',
    example: '-----BEGIN CERTIFICATE-----\nMIIBhTCCASugAwIBAgIU...\n-----END CERTIFICATE-----\n',
  })
  @IsString()
  @Length(1, CERTIFICATE_PEM_MAX_LENGTH, { message: `certificate_pem must be 1 to ${CERTIFICATE_PEM_MAX_LENGTH} characters` })
  certificate_pem!: string;
}

/** Client ids and secrets: printable ASCII (RFC 6749 VSCHAR), 1 to 256 characters. */
const CREDENTIAL_TEXT = { type: 'string', minLength: 1, maxLength: 256, pattern: '^[\\x20-\\x7E]+$' } as const;

/**
 * Body of `POST {auth_url}/oauth/token` (RFC 6749 4.4), as JSON or `application/x-www-form-urlencoded`. For the
 * OpenAPI document only: the token endpoint reads its body itself, so that every refusal is an RFC 6749 5.2 error
 * (400 `invalid_request`, ...) rather than a 422.
 */
@ApiSchema({
  name: 'TokenRequest',
  description: 'RFC 6749 4.4 client-credentials parameters (JSON or form); other parameters are ignored (RFC 6749 3.2).',
})
export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'], description: 'Any other grant type: 400 `unsupported_grant_type`.', example: 'client_credentials' })
  grant_type!: 'client_credentials';

  @ApiProperty({
    type: 'string',
    description:
      'The API the token is for: the platform `{base_url}`, search `{search_url}/v1` or gis `{gis_url}` (a trailing ' +
      'slash is ignored). Producers, manufacturers and retailers may ask for the platform, grading labs for gis, ' +
      'non-participants for search; anything else is 400 `invalid_target`.',
    example: 'http://localhost:3002',
  })
  audience!: string;

  @ApiPropertyOptional({
    ...CREDENTIAL_TEXT,
    description: 'With `client_secret`, unless the client authenticates with HTTP Basic.',
    example: 'dtp_q3v9Kx2LmN8pR4sT6uW1yA',
  })
  client_id?: string;

  @ApiPropertyOptional({ ...CREDENTIAL_TEXT, description: 'Not together with HTTP Basic.', example: 'Zx8c1Q2w3E4r5T6y7U8i9O0pAsDfGhJkLzXcVbNm1q2' })
  client_secret?: string;
}
