import { ApiProperty } from '@nestjs/swagger';
import type { ShipmentStatus, ShipmentType, TransferState } from '../enums/shipment';
import type { LifecycleState } from '../enums/diamond-state';
import type { Clarity, Colour, CutGrade } from '../enums/grading-scales';
import type { Shape } from '../enums/shape';
import { ID_MAX_LENGTH, MAX_PAGE_SIZE, NAME_MAX_LENGTH, TRANSFER_LIMIT } from '../rules/limits';
import { SHIPMENT_TIMESTAMP_PATTERN } from '../rules/timestamps';
import { ApiEnums, decimalTextField, diamondIdField } from './api-fields';

/** `YYYY-MM-DDTHH:MM+0000` (rules/timestamps.ts): the spec's shipment timestamps, always UTC, to the minute. */
const shipmentTimestamp = (description: string) =>
  ({
    type: 'string',
    pattern: SHIPMENT_TIMESTAMP_PATTERN.source,
    description: `${description} (form \`YYYY-MM-DDTHH:MM+0000\`, UTC).`,
    example: '2024-05-01T10:00+0000',
  }) as const;

/** Rough summary inside a shipment diamond entry. */
export class ShipmentRoughSummary {
  @ApiProperty(decimalTextField({ description: 'Rough weight in carats, decimal text.', example: '2.35' }))
  carats!: string;

  @ApiProperty({ ...ApiEnums.Colour, nullable: true, example: 'G' })
  colour!: Colour | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: null })
  model!: string | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: null })
  quality!: string | null;

  @ApiProperty({ type: 'string', nullable: true, maxLength: ID_MAX_LENGTH, example: null })
  stress!: string | null;

  @ApiProperty({
    type: 'string',
    maxLength: ID_MAX_LENGTH,
    description: 'The box the diamond was registered against (empty when it has none).',
    example: 'BOX-2024-0042',
  })
  box_id!: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2024 })
  sight_year!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: "The record's `sight_no`.", example: 5 })
  sight_number!: number | null;
}

/** Polished summary inside a shipment diamond entry. */
export class ShipmentPolishedSummary {
  @ApiProperty(decimalTextField({ nullable: true, description: 'Polished weight in carats, decimal text.', example: '1.01' }))
  carats!: string | null;

  @ApiProperty({ ...ApiEnums.Clarity, nullable: true, example: 'VS1' })
  clarity!: Clarity | null;

  @ApiProperty({ ...ApiEnums.Colour, nullable: true, example: 'G' })
  colour!: Colour | null;

  @ApiProperty({ ...ApiEnums.CutGrade, nullable: true, example: 'EX' })
  cut_grade!: CutGrade | null;

  @ApiProperty({ ...ApiEnums.Shape, nullable: true, example: 'Round' })
  shape!: Shape | null;
}

export class ShipmentDiamondEntry {
  /** `YYYY-MM-DDTHH:MM+0000` (rules/timestamps.ts). */
  @ApiProperty(shipmentTimestamp('When the diamond was shipped'))
  created_at!: string;

  @ApiProperty(shipmentTimestamp('When its transfer_state last changed'))
  updated_at!: string;

  @ApiProperty(diamondIdField())
  diamond_id!: string;

  @ApiProperty({ ...ApiEnums.LifecycleState, description: 'As shipped.', example: 'rough' })
  lifecycle_state!: LifecycleState;

  @ApiProperty({
    ...ApiEnums.TransferState,
    description: '`transfer_in_pending` until the recipient accepts (`transfer_in_confirmed`) or rejects (`transfer_in_rejected`) it.',
    example: 'transfer_in_pending',
  })
  transfer_state!: TransferState;

  @ApiProperty({ type: () => ShipmentRoughSummary, nullable: true, description: 'Null when the diamond has no rough data.' })
  rough!: ShipmentRoughSummary | null;

  @ApiProperty({ type: () => ShipmentPolishedSummary, nullable: true, description: 'Null unless the diamond is at the polished stage.' })
  polished!: ShipmentPolishedSummary | null;
}

/** A shipment as listed by `GET {base_url}/v2/shipment/inbound` and returned by transfer out. */
export class InboundShipment {
  @ApiProperty(
    diamondIdField({
      description: 'The shipment id assigned by the platform (minted like a diamond id); the `box_id` to register its rough diamonds against once accepted.',
    }),
  )
  id!: string;

  @ApiProperty({ type: 'string', minLength: 1, maxLength: NAME_MAX_LENGTH, example: 'May rough to cutting' })
  name!: string;

  /** Base address of the sender's instance. */
  @ApiProperty({ type: 'string', description: "Base address of the sender's instance.", example: 'https://platform.example.com' })
  sender!: string;

  @ApiProperty({ ...ApiEnums.ShipmentType, example: 'rough' })
  shipment_type!: ShipmentType;

  @ApiProperty({
    ...ApiEnums.ShipmentStatus,
    description: "`action_required` while a diamond awaits the recipient's answer, then `completed`.",
    example: 'action_required',
  })
  status!: ShipmentStatus;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: TRANSFER_LIMIT, example: 1 })
  total_diamonds!: number;

  /** `YYYY-MM-DDTHH:MM+0000`. */
  @ApiProperty(shipmentTimestamp('When the shipment was sent'))
  created_at!: string;

  @ApiProperty({ type: () => ShipmentDiamondEntry, isArray: true, maxItems: TRANSFER_LIMIT, description: 'Every diamond of the shipment, in the order sent.' })
  diamonds!: ShipmentDiamondEntry[];
}

/** The list response envelope (`next`/`previous` are absolute page links or null). */
export interface ListEnvelope<T> {
  next: string | null;
  previous: string | null;
  page: number;
  pages: number;
  total: number;
  results: T[];
}

/** The shipment lists' envelope (`GET /v2/shipment/inbound`, `/v2/shipment/outbound`). */
export class ShipmentList implements ListEnvelope<InboundShipment> {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Absolute link to the next page; null from the last page on.',
    example: 'https://platform.example.com/v2/shipment/inbound?page=2&page_size=50',
  })
  next!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Absolute link to the previous page (the last page, from past the end); null on the first page.',
    example: null,
  })
  previous!: string | null;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'This page (from 1).', example: 1 })
  page!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of pages (0 when the list is empty).', example: 2 })
  pages!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of shipments in the list.', example: 51 })
  total!: number;

  @ApiProperty({ type: () => InboundShipment, isArray: true, maxItems: MAX_PAGE_SIZE, description: "This page's shipments, oldest first." })
  results!: InboundShipment[];
}
