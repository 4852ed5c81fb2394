import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@dtp/domain';

export interface ProvenanceValue {
  name: string;
  type: string;
  country_code?: string | null;
}

/** A participant of the network: one role each. Never returned as an API body (see participant.mapper.ts). */
@Entity({ name: 'participants' })
export class ParticipantEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: Role;

  @Column('jsonb', { nullable: true })
  provenance!: ProvenanceValue | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at!: Date;

  /** When its integration started (default: onboarding). Before 2023-06-30: a legacy integration, mutual TLS allowed. */
  @Column('timestamptz', { default: () => 'now()' })
  integration_started_at!: Date;
}
