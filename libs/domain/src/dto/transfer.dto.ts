import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { SHIPMENT_TYPE_VALUES, ShipmentType } from '../enums/shipment';
import { DEFAULT_PAGE_SIZE, ID_MAX_LENGTH, MAX_PAGE_SIZE, NAME_MAX_LENGTH, TRANSFER_LIMIT } from '../rules/limits';

/** Shared rule for `diamond_ids`: 1 to 1,000 distinct non-empty strings of at most 256 characters. */
function DiamondIds(): PropertyDecorator {
  const decorators = [
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
export class TransferOutDto {
  @IsUUID('all', { message: 'recipient_participant_id must be a UUID' })
  recipient_participant_id!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(NAME_MAX_LENGTH)
  name!: string;

  @IsIn(SHIPMENT_TYPE_VALUES)
  shipment_type!: ShipmentType;

  @DiamondIds()
  diamond_ids!: string[];
}

/** Body of accept (`POST /v2/transfer/in/{shipment_id}/accept`) and reject (`.../reject`). */
export class TransferDecisionDto {
  @DiamondIds()
  diamond_ids!: string[];
}

/** Query of `GET {base_url}/v2/shipment/inbound`. Query strings arrive as text; numbers are converted. */
export class InboundShipmentQueryDto {
  @IsOptional()
  @IsIn(SHIPMENT_TYPE_VALUES)
  shipment_type?: ShipmentType;

  /** From 1. */
  @Type(() => Number)
  @IsOptional()
  @IsInt()
  @Min(1)
  page: number = 1;

  @Type(() => Number)
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  page_size: number = DEFAULT_PAGE_SIZE;
}
