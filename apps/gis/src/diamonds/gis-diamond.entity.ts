import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * GIS's view of one diamond, fed by platform.diamonds.v1. A deleted diamond keeps its row (deleted = true) so
 * verify/validate answer 410. Never returned as an API body.
 */
@Entity({ name: 'gis_diamonds' })
export class GisDiamondEntity {
  @PrimaryColumn('text')
  diamond_id!: string;

  /** Revision of the last platform event applied. */
  @Column('bigint')
  revision!: string;

  @Column('text', { nullable: true })
  version_id!: string | null;

  @Column('text', { nullable: true })
  lifecycle_state!: string | null;

  @Column('text', { nullable: true })
  current_stage!: string | null;

  @Column('text', { nullable: true })
  unlock_status!: string | null;

  /** Declared polished carats (decimal text). */
  @Column('text', { nullable: true })
  carats!: string | null;

  /** Declared polished shape. */
  @Column('text', { nullable: true })
  shape!: string | null;

  @Column('text', { nullable: true })
  holder_participant_id!: string | null;

  /** Hash of the newest attached scan report (blob-store key). */
  @Column('text', { nullable: true })
  scan_report_hash!: string | null;

  @Column('boolean')
  deleted!: boolean;

  @Column('timestamptz', { nullable: true })
  deleted_at!: Date | null;

  /** Last gis_status published on gis.eligibility.v1 (null: not assessed). */
  @Column('text', { nullable: true })
  gis_status!: string | null;

  @Column('text', { nullable: true })
  gis_reason!: string | null;

  @Column('bigint')
  eligibility_revision!: string;

  @Column('bigint')
  grading_revision!: string;

  @Column('timestamptz')
  updated_at!: Date;
}
