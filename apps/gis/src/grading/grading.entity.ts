import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GradingSubmission } from '@dtp/domain';

/** A lab's grading submission, published as `grading.submitted` on gis.gradings.v1. */
@Entity({ name: 'gradings' })
export class GradingEntity {
  @PrimaryColumn('uuid', { name: 'grading_id' })
  gradingId!: string;

  @Column('text', { name: 'diamond_id' })
  diamondId!: string;

  @Column('text', { name: 'lab_participant_id' })
  labParticipantId!: string;

  /** The unexpired Verified validation that allowed the submission. */
  @Column('uuid', { name: 'validation_request_id' })
  validationRequestId!: string;

  /** Revision of the grading.submitted event (per diamond). */
  @Column('bigint')
  revision!: string;

  @Column('jsonb')
  data!: GradingSubmission;

  @Column('timestamptz', { name: 'submitted_at' })
  submittedAt!: Date;
}
