import 'reflect-metadata'; // class-transformer's @Type reads design:type metadata
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { IsIsoDateTime } from '../../dto/validators';
import { SHIPMENT_STATUS_VALUES, SHIPMENT_TYPE_VALUES, ShipmentStatus, ShipmentType, TRANSFER_STATE_VALUES, TransferState } from '../../enums/shipment';

/**
 * `shipment.changed` on platform.shipments.v1; key = shipment_id. Published on transfer out and on
 * every accept/reject, carrying the shipment's current state.
 */
export interface ShipmentChangedData {
  shipment_id: string;
  name: string;
  shipment_type: ShipmentType;
  status: ShipmentStatus;
  sender_participant_id: string;
  recipient_participant_id: string;
  /** Base address of the sender's instance (the listed `sender`). */
  sender?: string | null;
  total_diamonds: number;
  diamonds: { diamond_id: string; transfer_state: TransferState }[];
  /** ISO 8601 date-time. */
  created_at: string;
  updated_at: string;
}

export class ShipmentChangedDiamondPayload {
  @IsString() @IsNotEmpty() diamond_id!: string;
  @IsIn(TRANSFER_STATE_VALUES) transfer_state!: TransferState;
}

export class ShipmentChangedPayload implements ShipmentChangedData {
  @IsString() @IsNotEmpty() shipment_id!: string;
  @IsString() name!: string;
  @IsIn(SHIPMENT_TYPE_VALUES) shipment_type!: ShipmentType;
  @IsIn(SHIPMENT_STATUS_VALUES) status!: ShipmentStatus;
  @IsString() @IsNotEmpty() sender_participant_id!: string;
  @IsString() @IsNotEmpty() recipient_participant_id!: string;
  @IsOptional() @IsString() sender?: string | null;
  @IsInt() @Min(0) total_diamonds!: number;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ShipmentChangedDiamondPayload)
  diamonds!: ShipmentChangedDiamondPayload[];

  @IsIsoDateTime() created_at!: string;
  @IsIsoDateTime() updated_at!: string;
}
