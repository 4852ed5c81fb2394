import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ValidationDetailItem } from '../dto/validation-detail';

/** One entry of a 422 `detail` list (the schema of ValidationDetailItem). */
export class ValidationDetailEntry implements ValidationDetailItem {
  @ApiProperty({
    description: 'Where the bad value is: `body`, `query`, `path` or `header`, then field names and array indexes.',
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    example: ['body', 'rough', 'carats'],
  })
  loc!: (string | number)[];

  @ApiProperty({ description: 'What is wrong, for people.', example: 'Input should be greater than 0' })
  msg!: string;

  @ApiProperty({ description: 'What is wrong, for programs (FastAPI-style error type).', example: 'greater_than' })
  type!: string;
}

/**
 * 422 body (DESIGN.md): `{"detail": [{loc, msg, type}]}` naming every bad field (at most 50 entries, then
 * `detail_omitted` counts the rest); create-rough failures and most others also carry `message`.
 */
export class ValidationErrorResponse {
  @ApiProperty({ type: [ValidationDetailEntry], maxItems: 50 })
  detail!: ValidationDetailItem[];

  @ApiPropertyOptional({ description: 'The entries of `detail` as one sentence.', example: 'rough.carats: Input should be greater than 0' })
  message?: string;

  @ApiPropertyOptional({ description: 'How many further entries were left out of `detail` (it holds at most 50).', type: 'integer', minimum: 1 })
  detail_omitted?: number;
}

/** Error body with a plain message, and a machine-readable reason where one exists. */
export class MessageErrorResponse {
  @ApiProperty({ description: 'What went wrong, for people.', example: 'Diamond not found' })
  message!: string;

  @ApiPropertyOptional({ description: 'What went wrong, for programs (stable snake_case values listed per operation).', example: 'not_found' })
  reason?: string;

  @ApiPropertyOptional({
    description: 'The request id (also in the `X-Request-Id` header); sent with 5xx answers.',
    example: '3f2c1a9e-5b1d-4e8a-9c3b-1d2e3f4a5b6c',
  })
  request_id?: string;
}

/** Uniqueness failure on create rough: 409. */
export interface DiamondNotUniqueResponse extends MessageErrorResponse {
  reason: 'diamond_not_unique';
}
