import { Check, Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { DeliveryStatus } from '@dtp/domain';

/**
 * `participant_events` (migration 1764986400000-webhooks): every event a participant receives, written in the
 * transaction of its cause; the event feed reads it in `seq` order. Property names are the column names.
 */
@Entity({ name: 'participant_events' })
@Unique('participant_events_event_id', ['event_id'])
@Index('participant_events_feed', ['participant_id', 'seq'])
export class ParticipantEventEntity {
  /** bigint: pg returns it as text. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'participant_events_pkey' })
  seq!: string;

  @Column('uuid')
  event_id!: string;

  @Column('text')
  participant_id!: string;

  @Column('text')
  type!: string;

  @Column('text')
  subject!: string;

  @Column('timestamptz')
  time!: Date;

  /** The CloudEvent's data (json: kept as written). */
  @Column('json')
  data!: unknown;
}

/** `webhooks`: a participant's subscriptions, their signing secrets and the delivery worker's lease. */
@Entity({ name: 'webhooks' })
@Index('webhooks_participant', ['participant_id'])
export class WebhookEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'webhooks_pkey' })
  webhook_id!: string;

  @Column('text')
  participant_id!: string;

  @Column('text')
  url!: string;

  /** null: every type. */
  @Column('text', { array: true, nullable: true })
  event_types!: string[] | null;

  @Column('text', { nullable: true })
  description!: string | null;

  @Column('boolean', { default: true })
  enabled!: boolean;

  /** `gone` once a 410 disabled it. */
  @Column('text', { nullable: true })
  disabled_reason!: string | null;

  /** `whsec_...`: the HMAC key is its base64-decoded bytes. */
  @Column('text')
  secret!: string;

  /** The secret before the last rotation, which also signs until `previous_secret_until`. */
  @Column('text', { nullable: true })
  previous_secret!: string | null;

  @Column('timestamptz', { nullable: true })
  previous_secret_until!: Date | null;

  @Column('timestamptz')
  created_at!: Date;

  /** The delivery worker that holds the webhook (one delivery in flight per webhook) and until when. */
  @Column('timestamptz', { nullable: true })
  lease_until!: Date | null;

  @Column('text', { nullable: true })
  leased_by!: string | null;

  /** When a worker last released it: the least recently served go first (fairness). */
  @Column('timestamptz', { nullable: true })
  served_at!: Date | null;

  /**
   * The worker's walk over the webhook's pending deliveries starts here: no pending delivery has a lower event_seq
   * (bigint: pg returns it as text). It moves to `pending_from_next` once every transaction open at
   * `pending_from_next_at` has ended (webhooks.repository.ts `moveWalkStart`); a retry by hand lowers it.
   */
  @Column('bigint', { default: 0 })
  pending_from!: string;

  @Column('bigint', { nullable: true })
  pending_from_next!: string | null;

  @Column('timestamptz', { nullable: true })
  pending_from_next_at!: Date | null;
}

/**
 * `webhook_deliveries`: one event to one webhook, its attempts and outcome. `webhook_id` and `event_seq` name a webhook
 * and an event without foreign keys (migration 1765072800000: the statements delete what the keys cascaded).
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_log', ['webhook_id', 'event_seq'])
@Index('webhook_deliveries_pending', ['webhook_id', 'subject', 'event_seq'], { where: `status = 'pending'` })
@Index('webhook_deliveries_due', ['webhook_id', 'event_seq'], { where: `status = 'pending'` })
@Check('webhook_deliveries_status', `status IN ('pending', 'delivered', 'failed')`)
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  delivery_id!: string;

  @Column('uuid')
  webhook_id!: string;

  /** bigint: pg returns it as text. */
  @Column('bigint')
  event_seq!: string;

  @Column('uuid')
  event_id!: string;

  @Column('text')
  type!: string;

  @Column('text')
  subject!: string;

  @Column('text', { default: 'pending' })
  status!: DeliveryStatus;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('timestamptz', { default: () => 'now()' })
  next_attempt_at!: Date;

  @Column('timestamptz', { nullable: true })
  first_attempt_at!: Date | null;

  @Column('integer', { nullable: true })
  last_status_code!: number | null;

  @Column('text', { nullable: true })
  last_error!: string | null;

  @Column('timestamptz', { nullable: true })
  delivered_at!: Date | null;

  @Column('timestamptz', { default: () => 'now()' })
  created_at!: Date;
}

export type WebhookRow = WebhookEntity;
export type DeliveryRow = WebhookDeliveryEntity;
