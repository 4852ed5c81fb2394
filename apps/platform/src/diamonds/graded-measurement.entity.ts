import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { GradedMeasurementSource, GradingData } from '@dtp/domain';
import { DiamondEntity } from '../diamonds/diamond.entity';
import type { GradedMeasurementRow } from './graded-measurement.row';

/**
 * `graded_measurements` (migrations 1764028800000-diamonds, 1764201600000-shipments: held_back_at). Property names
 * are the column names: an entity is a GradedMeasurementRow.
 */
@Entity({ name: 'graded_measurements' })
@Index('graded_measurements_one_active', ['diamond_id'], { unique: true, where: 'is_active' })
@Index('graded_measurements_diamond', ['diamond_id', 'created_at'])
@Check('graded_measurements_source_check', `source IN ('gis', 'user')`)
export class GradedMeasurementEntity implements GradedMeasurementRow {
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

  @Column('jsonb')
  data!: GradingData;

  @Column('text', { nullable: true })
  created_by!: string | null;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  created_at!: Date;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  updated_at!: Date;

  @Column('timestamptz', { nullable: true })
  held_back_at!: Date | null;
}
