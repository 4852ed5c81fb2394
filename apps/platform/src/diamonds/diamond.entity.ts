import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type { DiamondRow } from './diamond.row';

/**
 * `diamonds` (migration 1764028800000-diamonds), declared to the last constraint and index so that TypeORM's
 * schema builder finds nothing to change (apps/platform/test/entities.spec.ts). Property names are the column
 * names: an entity is a DiamondRow, the row the raw-SQL paths of DiamondsRepository read and write.
 */
@Entity({ name: 'diamonds' })
@Unique('diamonds_legacy_id_key', ['legacy_id'])
@Index('diamonds_box_participant_id', ['box_scope', 'box_id', 'participant_id'], { unique: true })
@Index('diamonds_parent', ['diamond_parent_id'], { where: 'diamond_parent_id IS NOT NULL' })
@Index('diamonds_holder', ['holder_id'])
@Index('diamonds_uploader', ['uploader_id'])
@Index('diamonds_provenance_pending', ['uploader_id'], { where: 'provenance_pending' })
@Check('diamonds_diamond_id_check', `diamond_id ~ '^[a-z0-9]{20,98}$'`)
@Check('diamonds_revision_check', `revision >= 1`)
@Check('diamonds_lifecycle_state_check', `lifecycle_state IN ('rough', 'split', 'polished', 'destroyed')`)
@Check('diamonds_current_stage_check', `current_stage IN ('rough', 'polished')`)
@Check('diamonds_possession_state_check', `possession_state IN ('held', 'in_transit')`)
@Check('diamonds_unlock_status_check', `unlock_status IN ('locked', 'unlocked')`)
@Check('diamonds_assurance_level_check', `assurance_level IN ('assured', 'declared')`)
export class DiamondEntity implements DiamondRow {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'diamonds_pkey' })
  diamond_id!: string;

  @Column('uuid')
  legacy_id!: string;

  @Column('text')
  version_id!: string;

  /** bigint: text, as pg returns it. */
  @Column('bigint')
  revision!: string;

  @Column('text')
  uploader_id!: string;

  @Column('text')
  holder_id!: string;

  @Column('text')
  producer_uuid!: string;

  @Column('text', { nullable: true })
  box_scope!: string | null;

  @Column('text', { nullable: true })
  box_id!: string | null;

  @Column('text', { nullable: true })
  participant_id!: string | null;

  @Column('text', { nullable: true })
  diamond_parent_id!: string | null;

  /** The parent diamond (the foreign key of diamond_parent_id); never loaded by the repository. */
  @ManyToOne(() => DiamondEntity, { nullable: true, createForeignKeyConstraints: true })
  @JoinColumn({ name: 'diamond_parent_id', referencedColumnName: 'diamond_id', foreignKeyConstraintName: 'diamonds_diamond_parent_id_fkey' })
  parent?: DiamondEntity | null;

  @Column('text', { nullable: true })
  participant_parent_id!: string | null;

  @Column('uuid', { nullable: true })
  legacy_parent_id!: string | null;

  @Column('text')
  lifecycle_state!: DiamondRow['lifecycle_state'];

  @Column('text')
  current_stage!: DiamondRow['current_stage'];

  @Column('text')
  possession_state!: DiamondRow['possession_state'];

  @Column('text')
  unlock_status!: DiamondRow['unlock_status'];

  @Column('text')
  assurance_level!: DiamondRow['assurance_level'];

  @Column('boolean', { default: false })
  rough_check!: boolean;

  @Column('boolean', { default: false })
  provenance_pending!: boolean;

  @Column('text', { nullable: true })
  box_description!: string | null;

  @Column('bigint', { nullable: true })
  sight_no!: string | null;

  @Column('bigint', { nullable: true })
  sight_year!: string | null;

  @Column('text')
  participant_timestamp!: string;

  @Column('timestamptz')
  system_timestamp!: Date;

  @Column('timestamptz')
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  archived_at!: Date | null;

  @Column('text', { nullable: true })
  gis_status!: DiamondRow['gis_status'];

  @Column('boolean', { default: false })
  three_d_plan_available!: boolean;

  @Column('text', { default: 'Verified' })
  verification_status!: DiamondRow['verification_status'];

  @Column('text', { default: 'verified record' })
  verification_description!: string;

  @Column('timestamptz', { nullable: true })
  verification_status_modified_at!: Date | null;

  @Column('jsonb')
  rough!: DiamondRow['rough'];

  @Column('jsonb')
  polished!: DiamondRow['polished'];

  @Column('jsonb')
  provenance!: DiamondRow['provenance'];

  @Column('jsonb', { nullable: true })
  entity_specific_tags!: DiamondRow['entity_specific_tags'];

  @Column('jsonb', { nullable: true })
  supplementary_tags!: DiamondRow['supplementary_tags'];

  @Column('jsonb', { default: () => `'[]'` })
  data_requests!: DiamondRow['data_requests'];

  @Column('jsonb', { default: () => `'[]'` })
  rough_objective_verification_results!: DiamondRow['rough_objective_verification_results'];

  @Column('jsonb', { default: () => `'[]'` })
  polished_objective_verification_results!: DiamondRow['polished_objective_verification_results'];

  /** Migration 1764547200000-custody-log: the latest custody entry's hash. */
  @Column('text', { nullable: true })
  custody_head!: string | null;
}
