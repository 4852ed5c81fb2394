import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * GIS's view of one diamond, fed by platform.diamonds.v1. A deleted diamond keeps its row (deleted = true) so
 * verify/validate answer 410. Never returned as an API body.
 */
@Entity({ name: 'gis_diamonds' })
export class GisDiamondEntity {
  @PrimaryColumn('text', { name: 'diamond_id' })
  diamondId!: string;

  /** Revision of the last platform event applied. */
  @Column('bigint')
  revision!: string;

  @Column('text', { name: 'version_id', nullable: true })
  versionId!: string | null;

  @Column('text', { name: 'lifecycle_state', nullable: true })
  lifecycleState!: string | null;

  @Column('text', { name: 'current_stage', nullable: true })
  currentStage!: string | null;

  @Column('text', { name: 'unlock_status', nullable: true })
  unlockStatus!: string | null;

  /** Declared polished carats (decimal text). */
  @Column('text', { nullable: true })
  carats!: string | null;

  /** Declared polished shape. */
  @Column('text', { nullable: true })
  shape!: string | null;

  @Column('text', { name: 'holder_participant_id', nullable: true })
  holderParticipantId!: string | null;

  /** Hash of the newest attached scan report (blob-store key). */
  @Column('text', { name: 'scan_report_hash', nullable: true })
  scanReportHash!: string | null;

  @Column('boolean')
  deleted!: boolean;

  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  /** Last gis_status published on gis.eligibility.v1 (null: not assessed). */
  @Column('text', { name: 'gis_status', nullable: true })
  gisStatus!: string | null;

  @Column('text', { name: 'gis_reason', nullable: true })
  gisReason!: string | null;

  @Column('bigint', { name: 'eligibility_revision' })
  eligibilityRevision!: string;

  @Column('bigint', { name: 'grading_revision' })
  gradingRevision!: string;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
