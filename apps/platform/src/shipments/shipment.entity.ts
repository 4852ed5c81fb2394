import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type {
  DiamondV1Provenance,
  LifecycleState,
  ShipmentPolishedSummary,
  ShipmentRoughSummary,
  ShipmentStatus,
  ShipmentType,
  TransferState,
} from '@dtp/domain';

/**
 * `shipments` (migration 1764201600000-shipments). Property names are the column names, so a raw-SQL row is a
 * ShipmentRow as it is (numeric and bigint as text, as pg returns them). Never an API body: shipment.mapper.ts
 * makes the view.
 */
@Entity({ name: 'shipments' })
@Index('shipments_recipient', ['recipient_id', 'created_at', 'shipment_id'])
@Index('shipments_recipient_type', ['recipient_id', 'shipment_type', 'created_at', 'shipment_id'])
@Index('shipments_sender', ['sender_id', 'created_at', 'shipment_id'])
@Index('shipments_sender_type', ['sender_id', 'shipment_type', 'created_at', 'shipment_id'])
// no bounded repetition ({20,98}): PostgreSQL's regex engine takes 10 times as long (migration 1765504800000)
@Check('shipments_shipment_id_check', `length(shipment_id) BETWEEN 20 AND 98 AND shipment_id ~ '^[a-z0-9]+$'`)
@Check('shipments_shipment_type_check', `shipment_type IN ('rough', 'polished')`)
@Check('shipments_status_check', `status IN ('action_required', 'completed')`)
@Check('shipments_check', `recipient_id <> sender_id`)
@Check('shipments_total_diamonds_check', `total_diamonds >= 1`)
@Check('shipments_total_carats_check', `total_carats >= 0`)
@Check('shipments_check1', `registered_count >= 0 AND registered_count <= total_diamonds`)
@Check('shipments_registered_carats_check', `registered_carats >= 0`)
@Check('shipments_revision_check', `revision >= 1`)
export class ShipmentEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'shipments_pkey' })
  shipment_id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  shipment_type!: ShipmentType;

  @Column('text')
  status!: ShipmentStatus;

  @Column('text')
  sender_id!: string;

  @Column('text')
  recipient_id!: string;

  /** Base address of the sender's instance (PUBLIC_BASE_URL when it was shipped): the listed `sender`. */
  @Column('text')
  sender_base_url!: string;

  @Column('integer')
  total_diamonds!: number;

  /** numeric: text, as pg returns it. */
  @Column('numeric')
  total_carats!: string;

  @Column('text')
  producer_uuid!: string;

  @Column('jsonb')
  provenance!: DiamondV1Provenance;

  @Column('integer', { default: 0 })
  registered_count!: number;

  @Column('numeric', { default: 0 })
  registered_carats!: string;

  /** bigint: pg returns it as text. */
  @Column('bigint')
  revision!: number | string;

  @Column('timestamptz')
  created_at!: Date;

  @Column('timestamptz')
  updated_at!: Date;
}

/** `shipment_diamonds`: a diamond as shipped (its summaries at that moment) and its transfer state. */
@Entity({ name: 'shipment_diamonds' })
@Unique('shipment_diamonds_shipment_id_position_key', ['shipment_id', 'position'])
@Index('shipment_diamonds_diamond', ['diamond_id'])
@Index('shipment_diamonds_one_pending', ['diamond_id'], { unique: true, where: `transfer_state = 'transfer_in_pending'` })
@Check('shipment_diamonds_transfer_state_check', `transfer_state IN ('transfer_in_pending', 'transfer_in_confirmed', 'transfer_in_rejected')`)
export class ShipmentDiamondEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'shipment_diamonds_pkey' })
  shipment_id!: string;

  /** The shipment (the foreign key, ON DELETE CASCADE); never loaded by the repository. */
  @ManyToOne(() => ShipmentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'shipment_id', referencedColumnName: 'shipment_id', foreignKeyConstraintName: 'shipment_diamonds_shipment_id_fkey' })
  shipment?: ShipmentEntity;

  /** No foreign key to diamonds: an entry outlives a later deletion of the diamond. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'shipment_diamonds_pkey' })
  diamond_id!: string;

  @Column('integer')
  position!: number;

  @Column('text')
  transfer_state!: TransferState;

  @Column('text')
  lifecycle_state!: LifecycleState;

  @Column('jsonb', { nullable: true })
  rough!: ShipmentRoughSummary | null;

  @Column('jsonb', { nullable: true })
  polished!: ShipmentPolishedSummary | null;

  @Column('timestamptz')
  created_at!: Date;

  @Column('timestamptz')
  updated_at!: Date;
}

/** One row of `shipments`. */
export type ShipmentRow = ShipmentEntity;

/** One row of `shipment_diamonds` (the shipment relation is never loaded). */
export type ShipmentDiamondRow = Omit<ShipmentDiamondEntity, 'shipment'>;
