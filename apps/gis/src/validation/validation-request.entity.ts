import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ValidationParameters, VerificationStatus } from '@dtp/domain';
import type { ValidationInput } from './validation-compare';

/** A validate-json request: the durable job the worker answers, and later its result. */
@Entity({ name: 'validation_requests' })
export class ValidationRequestEntity {
  @PrimaryColumn('uuid', { name: 'request_id' })
  requestId!: string;

  @Column('text', { name: 'diamond_id' })
  diamondId!: string;

  @Column('text', { name: 'lab_participant_id' })
  labParticipantId!: string;

  /** The lab's body as received (validated against ValidateJsonRequestDto). */
  @Column('jsonb')
  request!: ValidationInput;

  /** The scan report the request is compared with (the newest one when the request was accepted). */
  @Column('text', { name: 'scan_report_hash' })
  scanReportHash!: string;

  @Column('text')
  status!: VerificationStatus;

  @Column('text', { name: 'verification_description', nullable: true })
  verificationDescription!: string | null;

  @Column('text', { name: 'verification_error', nullable: true })
  verificationError!: string | null;

  @Column('jsonb', { nullable: true })
  parameters!: ValidationParameters | null;

  @Column('timestamptz', { name: 'requested_at' })
  requestedAt!: Date;

  @Column('timestamptz', { name: 'answered_at', nullable: true })
  answeredAt!: Date | null;

  /** Worker that stored the answer. */
  @Column('text', { name: 'answered_by', nullable: true })
  answeredBy!: string | null;

  /** Worker holding the job; with claimed_at, the lease. */
  @Column('text', { name: 'claimed_by', nullable: true })
  claimedBy!: string | null;

  @Column('timestamptz', { name: 'claimed_at', nullable: true })
  claimedAt!: Date | null;

  @Column('integer')
  attempts!: number;
}
