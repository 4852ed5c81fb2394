import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy, ValidationOptions } from 'class-validator';
import { dateTimeField } from '../records/api-fields';
import { INSTANT_PATTERN, IsIsoDateTime, IsOptionalNonNull } from './validators';

/** A date-time with a time zone that lies in the future (when validated). */
export function IsFutureInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isFutureInstant',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && INSTANT_PATTERN.test(value) && Date.parse(value) > Date.now(),
        defaultMessage: (a) => `${a?.property} must be a date-time with a time zone (e.g. 2030-01-01T00:00:00Z) in the future`,
      },
    },
    options,
  );
}

/** `POST {base_url}/diamonds/{diamond_id}/share`: an optional expiry of the passport link (default: none). */
export class CreateShareRequest {
  @ApiPropertyOptional(
    dateTimeField({ description: 'When the link stops working (a future instant); absent: it works until revoked.', example: '2030-01-01T00:00:00.000Z' }),
  )
  @IsOptionalNonNull()
  @IsIsoDateTime()
  @IsFutureInstant()
  expires_at?: string;
}

/** A passport share link of a diamond (DESIGN.md "Provenance": passport). */
export class ShareLink {
  @ApiProperty({ type: 'string', pattern: '^[A-Za-z0-9_-]{22}$', description: 'Unguessable (128 random bits, base64url).', example: 'q5Jx0C3c9tq3p0C5rQyWZw' })
  share_id!: string;

  @ApiProperty({
    type: 'string',
    format: 'uri',
    description: 'The public passport page: `{search_url}/passport/{share_id}`; anyone with it can open the page.',
    example: 'https://search.example.com/passport/q5Jx0C3c9tq3p0C5rQyWZw',
  })
  url!: string;

  @ApiProperty(dateTimeField({ nullable: true, description: 'When the link stops working, or null: until revoked.', example: null }))
  expires_at!: string | null;
}

/** A share id: 16 random bytes in base64url (22 characters, 128 bits). */
export const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const isShareId = (value: string): boolean => SHARE_ID_PATTERN.test(value);
