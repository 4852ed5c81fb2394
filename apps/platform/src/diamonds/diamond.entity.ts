import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import type {
  AssuranceLevel,
  CurrentStage,
  DiamondDataRequest,
  DiamondV1Polished,
  DiamondV1Provenance,
  DiamondV1Rough,
  GisStatus,
  LifecycleState,
  ObjectiveVerificationData,
  PossessionState,
  UnlockStatus,
  VerificationStatus,
} from '@dtp/domain';
import { entityColumns } from '@dtp/database';

/**
 * `diamonds` (migration 1764028800000-diamonds), declared to the last constraint and index so that TypeORM's
 * schema builder finds nothing to change (apps/platform/test/entities.spec.ts). The one description of the table
 * in code: property names are the column names, so a row the raw-SQL paths of DiamondsRepository read
 * (`SELECT *`) is a DiamondRow as it is, and their column lists come from these declarations (DIAMOND_COLUMNS).
 * Never an API body: the mapper (diamond.mapper.ts) turns a row into a DiamondV1.
 */
@Entity({ name: 'diamonds' })
@Unique('diamonds_legacy_id_key', ['legacy_id'])
@Index('diamonds_box_participant_id', ['box_scope', 'box_id', 'participant_id'], { unique: true })
@Index('diamonds_parent', ['diamond_parent_id'], { where: 'diamond_parent_id IS NOT NULL' })
// no index by holder or by uploader alone: nothing reads one (migration 1765591200000)
@Index('diamonds_provenance_pending', ['uploader_id'], { where: 'provenance_pending' })
// no bounded repetition ({20,98}): PostgreSQL's regex engine takes 10 times as long (migration 1765504800000)
@Check('diamonds_diamond_id_check', `length(diamond_id) BETWEEN 20 AND 98 AND diamond_id ~ '^[a-z0-9]+$'`)
@Check('diamonds_revision_check', `revision >= 1`)
@Check('diamonds_lifecycle_state_check', `lifecycle_state IN ('rough', 'split', 'polished', 'destroyed')`)
@Check('diamonds_current_stage_check', `current_stage IN ('rough', 'polished')`)
@Check('diamonds_possession_state_check', `possession_state IN ('held', 'in_transit')`)
@Check('diamonds_unlock_status_check', `unlock_status IN ('locked', 'unlocked')`)
@Check('diamonds_assurance_level_check', `assurance_level IN ('assured', 'declared')`)
export class DiamondEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'diamonds_pkey' })
  diamond_id!: string;

  @Column('uuid')
  legacy_id!: string;

  @Column('text')
  version_id!: string;

  /** Grows by one on every change; the outbox envelope's `revision`. bigint: pg returns it as text. */
  @Column('bigint')
  revision!: number | string;

  /** The participant that registered (or created) the diamond; the only one who may delete it. */
  @Column('text')
  uploader_id!: string;

  /** The participant holding it now: attaches files, unlocks, manages graded measurements, ships it. */
  @Column('text')
  holder_id!: string;

  @Column('text')
  producer_uuid!: string;

  /** Whose box `box_id` names (uniqueness of participant_id is per (box_scope, box_id)). */
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
  lifecycle_state!: LifecycleState;

  @Column('text')
  current_stage!: CurrentStage;

  @Column('text')
  possession_state!: PossessionState;

  @Column('text')
  unlock_status!: UnlockStatus;

  @Column('text')
  assurance_level!: AssuranceLevel;

  @Column('boolean', { default: false })
  rough_check!: boolean;

  /** Provenance came from token claims because the participant's onboarding event had not arrived yet. */
  @Column('boolean', { default: false })
  provenance_pending!: boolean;

  @Column('text', { nullable: true })
  box_description!: string | null;

  @Column('bigint', { nullable: true })
  sight_no!: number | string | null;

  @Column('bigint', { nullable: true })
  sight_year!: number | string | null;

  @Column('text')
  participant_timestamp!: string;

  @Column('timestamptz')
  system_timestamp!: Date;

  @Column('timestamptz')
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  archived_at!: Date | null;

  @Column('text', { nullable: true })
  gis_status!: GisStatus | null;

  @Column('boolean', { default: false })
  three_d_plan_available!: boolean;

  @Column('text', { default: 'Verified' })
  verification_status!: VerificationStatus;

  @Column('text', { default: 'verified record' })
  verification_description!: string;

  @Column('timestamptz', { nullable: true })
  verification_status_modified_at!: Date | null;

  @Column('jsonb')
  rough!: DiamondV1Rough;

  @Column('jsonb')
  polished!: DiamondV1Polished;

  @Column('jsonb')
  provenance!: DiamondV1Provenance;

  @Column('jsonb', { nullable: true })
  entity_specific_tags!: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  supplementary_tags!: Record<string, unknown> | null;

  @Column('jsonb', { default: () => `'[]'` })
  data_requests!: DiamondDataRequest[];

  @Column('jsonb', { default: () => `'[]'` })
  rough_objective_verification_results!: ObjectiveVerificationData[];

  @Column('jsonb', { default: () => `'[]'` })
  polished_objective_verification_results!: ObjectiveVerificationData[];

  /**
   * Migration 1764547200000-custody-log: entry_hash of the diamond's latest custody log entry (the next entry's
   * prev_entry_hash); null before its first.
   */
  @Column('text', { nullable: true })
  custody_head!: string | null;
}

/** One row of `diamonds` as this service holds it: the entity's columns (the parent relation is never loaded). */
export type DiamondRow = Omit<DiamondEntity, 'parent'>;

/** The columns in declaration order: DiamondsRepository builds its INSERT and UPDATE statements from this list. */
export const DIAMOND_COLUMNS: readonly (keyof DiamondRow)[] = entityColumns(DiamondEntity).map((c) => c.property as keyof DiamondRow);

/** JSONB columns: serialised with JSON.stringify on the way in. */
export const DIAMOND_JSON_COLUMNS: ReadonlySet<keyof DiamondRow> = new Set(
  entityColumns(DiamondEntity)
    .filter((c) => c.type === 'jsonb')
    .map((c) => c.property as keyof DiamondRow),
);
