import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { DeleteFailureReason } from '../enums/deletion';
import { DELETE_LIMIT, ID_MAX_LENGTH } from '../rules/limits';
import { ApiEnums, diamondIdField } from './api-fields';

export class DeleteSuccessEntry {
  @ApiProperty(diamondIdField())
  diamond_id!: string;

  @ApiProperty({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, description: "The diamond's participant_id.", example: 'STOCK-000123' })
  participant_id!: string | null;

  @ApiProperty({ type: 'string', enum: ['success'], example: 'success' })
  status!: 'success';

  /** Ids of the descendants deleted together with it; empty when none. */
  @ApiProperty({ type: 'array', items: diamondIdField() as object, description: 'Ids of the descendants deleted with it; empty when none.', example: [] })
  descendants!: string[];
}

/** DESIGN.md: failures carry a reason and a plain-language detail, and never descendants. */
export class DeleteFailureEntry {
  @ApiProperty({
    type: 'string',
    maxLength: ID_MAX_LENGTH,
    description: 'The id as requested (any string; an unknown one fails with `not_found`).',
    example: '01j0k6v8m2x4c9d7f3h5n1p0qr',
  })
  diamond_id!: string;

  /** The diamond's participant_id; null when the diamond is not found. */
  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: ID_MAX_LENGTH,
    description: "The diamond's participant_id; null for `not_found` and `not_owner`.",
    example: 'STOCK-000123',
  })
  participant_id!: string | null;

  @ApiProperty({ type: 'string', enum: ['failure'], example: 'failure' })
  status!: 'failure';

  @ApiProperty({ ...ApiEnums.DeleteFailureReason, example: 'unlocked' })
  reason!: DeleteFailureReason;

  @ApiProperty({ type: 'string', description: 'Why, for people.', example: 'the diamond is unlocked; unlocked diamonds cannot be deleted' })
  detail!: string;

  @ApiProperty({ type: 'array', items: { type: 'string' }, maxItems: 0, description: 'Always empty: nothing is deleted on a failure.', example: [] })
  descendants!: [];
}

export type DeleteResultEntry = DeleteSuccessEntry | DeleteFailureEntry;

/** Response of `POST {base_url}/bulk/diamonds/delete`: one entry per requested diamond. */
@ApiExtraModels(DeleteSuccessEntry, DeleteFailureEntry)
export class BulkDeleteResponse {
  @ApiProperty({
    type: 'array',
    items: {
      oneOf: [{ $ref: getSchemaPath(DeleteSuccessEntry) }, { $ref: getSchemaPath(DeleteFailureEntry) }],
      discriminator: {
        propertyName: 'status',
        mapping: { success: getSchemaPath(DeleteSuccessEntry), failure: getSchemaPath(DeleteFailureEntry) },
      },
    },
    minItems: 1,
    maxItems: DELETE_LIMIT,
    description: 'One entry per requested diamond, in request order; each handled on its own.',
  })
  results!: DeleteResultEntry[];
}
