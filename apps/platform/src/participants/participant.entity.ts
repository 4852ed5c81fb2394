import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@dtp/domain';
import type { ParticipantRow } from './participant.row';

/**
 * `participants` (migration 1764028800000-diamonds). Property names are the column names, as in every platform
 * entity: an entity is the same row the raw-SQL paths return (`RETURNING *`), so the mappers take either.
 */
@Entity({ name: 'participants' })
export class ParticipantEntity implements ParticipantRow {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'participants_pkey' })
  participant_id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: Role;

  @Column('jsonb', { nullable: true })
  provenance!: ParticipantRow['provenance'];

  @Column('text', { nullable: true })
  base_url!: string | null;

  /** bigint: text, as pg returns it. */
  @Column('bigint')
  revision!: string;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  updated_at!: Date;
}
