import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsString, MaxLength, ValidateNested } from 'class-validator';
import { closedSchema, DIAMOND_ID_EXAMPLE } from '../records/api-fields';
import { DELETE_LIMIT, ID_MAX_LENGTH } from '../rules/limits';
import { IsOptionalNonNull } from './validators';

/** One entry of a bulk delete request. */
@ApiSchema(closedSchema('BulkDeleteEntry', 'One diamond to delete. Unknown fields are rejected.'))
export class BulkDeleteEntryDto {
  /** Any string up to 256 characters; an unknown id is reported per diamond as `not_found`, not as a 422. */
  @ApiProperty({
    type: 'string',
    maxLength: ID_MAX_LENGTH,
    description: 'Any string; an unknown id is reported in its result entry as `not_found`.',
    example: DIAMOND_ID_EXAMPLE,
  })
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  diamond_id!: string;

  /** Absent means false. */
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Delete its descendants with it (all or nothing).', example: false })
  @IsOptionalNonNull()
  @IsBoolean()
  delete_descendants?: boolean;
}

/** Body of `POST {base_url}/bulk/diamonds/delete`: 1 to 1,000 entries. */
@ApiSchema(closedSchema('BulkDeleteRequest', 'Diamonds you uploaded to delete, for good. Unknown fields are rejected.'))
export class BulkDeleteRequestDto {
  @ApiProperty({
    type: () => BulkDeleteEntryDto,
    isArray: true,
    minItems: 1,
    maxItems: DELETE_LIMIT,
    description: `1 to ${DELETE_LIMIT} entries, each handled on its own.`,
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'diamonds must contain at least 1 entry' })
  @ArrayMaxSize(DELETE_LIMIT, { message: `diamonds must contain at most ${DELETE_LIMIT} entries` })
  @ValidateNested({ each: true })
  @Type(() => BulkDeleteEntryDto)
  diamonds!: BulkDeleteEntryDto[];
}
