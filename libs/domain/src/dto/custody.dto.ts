import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, Max, Min } from 'class-validator';

/**
 * Query of search's `GET /v1/custody/consistency?from=N&to=M` (RFC 9162 2.1.4): two tree sizes, 1 <= from <= to
 * <= the tree size of the latest checkpoint search serves (those two rules need the log: the service checks them,
 * with the same 422 body). Query strings arrive as text; numbers are converted. Both are required: an absent one
 * is one `missing` entry.
 */
export class ConsistencyQueryDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The older tree size.', example: 1 })
  @Type(() => Number)
  @IsDefined({ message: (a) => `${a.property} is required` })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  from!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: "The newer tree size: at most the latest checkpoint's `tree_size`.", example: 3 })
  @Type(() => Number)
  @IsDefined({ message: (a) => `${a.property} is required` })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  to!: number;
}
