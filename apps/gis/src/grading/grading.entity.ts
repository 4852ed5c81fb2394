import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GradingSubmission } from '@dtp/domain';

/** A lab's grading submission, published as `grading.submitted` on gis.gradings.v1. */
@Entity({ name: 'gradings' })
export class GradingEntity {
  @PrimaryColumn('uuid')
  grading_id!: string;

  @Column('text')
  diamond_id!: string;

  @Column('text')
  lab_participant_id!: string;

  /** The unexpired Verified validation that allowed the submission. */
  @Column('uuid')
  validation_request_id!: string;

  /** Revision of the grading.submitted event (per diamond). */
  @Column('bigint')
  revision!: string;

  @Column('jsonb')
  data!: GradingSubmission;

  @Column('timestamptz')
  submitted_at!: Date;
}
