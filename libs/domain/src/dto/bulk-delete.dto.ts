import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsString, MaxLength, ValidateNested } from 'class-validator';
import { DELETE_LIMIT, ID_MAX_LENGTH } from '../rules/limits';
import { IsOptionalNonNull } from './validators';

/** One entry of a bulk delete request. */
export class BulkDeleteEntryDto {
  /** Any string up to 256 characters; an unknown id is reported per diamond as `not_found`, not as a 422. */
  @IsString()
  @MaxLength(ID_MAX_LENGTH)
  diamond_id!: string;

  /** Absent means false. */
  @IsOptionalNonNull()
  @IsBoolean()
  delete_descendants?: boolean;
}

/** Body of `POST {base_url}/bulk/diamonds/delete`: 1 to 1,000 entries. */
export class BulkDeleteRequestDto {
  @IsArray()
  @ArrayMinSize(1, { message: 'diamonds must contain at least 1 entry' })
  @ArrayMaxSize(DELETE_LIMIT, { message: `diamonds must contain at most ${DELETE_LIMIT} entries` })
  @ValidateNested({ each: true })
  @Type(() => BulkDeleteEntryDto)
  diamonds!: BulkDeleteEntryDto[];
}
