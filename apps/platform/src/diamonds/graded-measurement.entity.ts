import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { GradedMeasurementSource, GradingData } from '@dtp/domain';
import { DiamondEntity } from './diamond.entity';

/**
 * `graded_measurements` (migrations 1764028800000-diamonds, 1764201600000-shipments: held_back_at). Property names
 * are the column names, so a raw-SQL row (`RETURNING *`) is a GradedMeasurementRow as it is. Part of the diamond
 * record (it shows its active graded measurement), so DiamondsModule owns the table.
 */
@Entity({ name: 'graded_measurements' })
@Index('graded_measurements_one_active', ['diamond_id'], { unique: true, where: 'is_active' })
@Index('graded_measurements_diamond', ['diamond_id', 'created_at'])
@Check('graded_measurements_source_check', `source IN ('gis', 'user')`)
export class GradedMeasurementEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'graded_measurements_pkey' })
  id!: string;

  @Column('text')
  diamond_id!: string;

  /** The diamond (the foreign key, ON DELETE CASCADE); never loaded by the repository. */
  @ManyToOne(() => DiamondEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'diamond_id', referencedColumnName: 'diamond_id', foreignKeyConstraintName: 'graded_measurements_diamond_id_fkey' })
  diamond?: DiamondEntity;

  @Column('text')
  source!: GradedMeasurementSource;

  @Column('boolean', { default: false })
  is_active!: boolean;

  @Column('boolean', { default: true })
  is_selectable!: boolean;

  /** Every GradingDataView member except the four record members; decimals as decimal text. */
  @Column('jsonb')
  data!: GradingData;

  @Column('text', { nullable: true })
  created_by!: string | null;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  created_at!: Date;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  updated_at!: Date;

  /** Set when a transfer left this (inactive) record behind: only the active record travels downstream. */
  @Column('timestamptz', { nullable: true })
  held_back_at!: Date | null;
}

/** One row of `graded_measurements`: the entity's columns (the diamond relation is never loaded). */
export type GradedMeasurementRow = Omit<GradedMeasurementEntity, 'diamond'>;
