import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { SHIPMENT_TYPE_VALUES, ShipmentType } from '../enums/shipment';
import { ApiEnums, closedSchema, DIAMOND_ID_EXAMPLE, uuidField } from '../records/api-fields';
import { canonicalUuid } from '../rules/ids';
import { DEFAULT_PAGE_SIZE, ID_MAX_LENGTH, MAX_PAGE_SIZE, NAME_MAX_LENGTH, TRANSFER_LIMIT } from '../rules/limits';

/** Shared rule for `diamond_ids`: 1 to 1,000 distinct non-empty strings of at most 256 characters. */
function DiamondIds(description: string): PropertyDecorator {
  const decorators = [
    ApiProperty({
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: ID_MAX_LENGTH },
      minItems: 1,
      maxItems: TRANSFER_LIMIT,
      uniqueItems: true,
      description,
      example: [DIAMOND_ID_EXAMPLE],
    }),
    IsArray(),
    ArrayMinSize(1, { message: 'diamond_ids must contain at least 1 entry' }),
    ArrayMaxSize(TRANSFER_LIMIT, { message: `diamond_ids must contain at most ${TRANSFER_LIMIT} entries` }),
    ArrayUnique({ message: 'diamond_ids must not contain duplicates' }),
    IsString({ each: true }),
    IsNotEmpty({ each: true }),
    MaxLength(ID_MAX_LENGTH, { each: true }),
  ];
  return (target: object, key: string | symbol) => decorators.forEach((d) => d(target, key));
}

/** Body of `POST {base_url}/v2/transfer/out`. */
@ApiSchema(closedSchema('TransferOut', 'A shipment of diamonds you hold to another participant. Unknown fields are rejected.'))
export class TransferOutDto {
  @ApiProperty(
    uuidField({ description: "The recipient's participant id (an onboarded producer, manufacturer or retailer; not yourself); either case, read lowercased." }),
  )
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? canonicalUuid(value) : value))
  @IsUUID('all', { message: 'recipient_participant_id must be a UUID' })
  recipient_participant_id!: string;

  @ApiProperty({ type: 'string', minLength: 1, maxLength: NAME_MAX_LENGTH, example: 'May rough to cutting' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(NAME_MAX_LENGTH)
  name!: string;

  @ApiProperty({
    ...ApiEnums.ShipmentType,
    description: '`rough`: rough diamonds only (retailers cannot send or receive them); `polished`: polished ones only.',
    example: 'rough',
  })
  @IsIn(SHIPMENT_TYPE_VALUES)
  shipment_type!: ShipmentType;

  @DiamondIds(`1 to ${TRANSFER_LIMIT} distinct ids of diamonds you hold, none in transit, each in the shipment_type's lifecycle_state.`)
  diamond_ids!: string[];
}

/** Body of accept (`POST /v2/transfer/in/{shipment_id}/accept`) and reject (`.../reject`). */
@ApiSchema(closedSchema('TransferDecision', 'The diamonds of a shipment sent to you to accept or reject. Unknown fields are rejected.'))
export class TransferDecisionDto {
  @DiamondIds(`1 to ${TRANSFER_LIMIT} distinct ids of diamonds awaiting your answer in this shipment (for a rough shipment: every one of them).`)
  diamond_ids!: string[];
}

/** Query of `GET {base_url}/v2/shipment/inbound`. Query strings arrive as text; numbers are converted. */
export class InboundShipmentQueryDto {
  @ApiPropertyOptional({ ...ApiEnums.ShipmentType, description: 'Only shipments of this type.' })
  @IsOptional()
  @IsIn(SHIPMENT_TYPE_VALUES)
  shipment_type?: ShipmentType;

  /** From 1. */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: 1,
    description: 'The page, from 1 (the offset `(page - 1) * page_size` may not pass 1,000,000,000).',
  })
  @Type(() => Number)
  @IsOptional()
  @IsInt()
  @Min(1)
  page: number = 1;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Shipments per page.' })
  @Type(() => Number)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  page_size: number = DEFAULT_PAGE_SIZE;
}
