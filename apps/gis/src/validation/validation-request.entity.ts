import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ValidationParameters, VerificationStatus } from '@dtp/domain';
import type { ValidationInput } from './validation-compare';

/** A validate-json request: the durable job the worker answers, and later its result. */
@Entity({ name: 'validation_requests' })
export class ValidationRequestEntity {
  @PrimaryColumn('uuid')
  request_id!: string;

  @Column('text')
  diamond_id!: string;

  @Column('text')
  lab_participant_id!: string;

  /** The lab's body as received (validated against ValidateJsonRequestDto). */
  @Column('jsonb')
  request!: ValidationInput;

  /** The scan report the request is compared with (the newest one when the request was accepted). */
  @Column('text')
  scan_report_hash!: string;

  @Column('text')
  status!: VerificationStatus;

  @Column('text', { nullable: true })
  verification_description!: string | null;

  @Column('text', { nullable: true })
  verification_error!: string | null;

  @Column('jsonb', { nullable: true })
  parameters!: ValidationParameters | null;

  @Column('timestamptz')
  requested_at!: Date;

  @Column('timestamptz', { nullable: true })
  answered_at!: Date | null;

  /** Worker that stored the answer. */
  @Column('text', { nullable: true })
  answered_by!: string | null;

  /** Worker holding the job; with claimed_at, the lease. */
  @Column('text', { nullable: true })
  claimed_by!: string | null;

  @Column('timestamptz', { nullable: true })
  claimed_at!: Date | null;

  @Column('integer')
  attempts!: number;
}
