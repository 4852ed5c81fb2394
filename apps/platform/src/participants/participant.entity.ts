import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@dtp/domain';

/**
 * `participants` (migration 1764028800000-diamonds): what platform knows about a participant, from
 * `participant.onboarded` on auth.participants.v1. Property names are the column names, as in every entity: a row
 * the raw-SQL paths return (`RETURNING *`) is a ParticipantRow as it is, so the mappers take either.
 */
@Entity({ name: 'participants' })
export class ParticipantEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'participants_pkey' })
  participant_id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: Role;

  @Column('jsonb', { nullable: true })
  provenance!: { name: string; type: string; country_code?: string | null } | null;

  @Column('text', { nullable: true })
  base_url!: string | null;

  /** bigint: pg returns it as text. */
  @Column('bigint')
  revision!: number | string;

  @Column('timestamptz', { default: () => 'clock_timestamp()' })
  updated_at!: Date;
}

/** One row of `participants`. */
export type ParticipantRow = ParticipantEntity;
