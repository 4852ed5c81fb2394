import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Every verify call that reached the rules (after authentication and body validation). */
@Entity({ name: 'verify_attempts' })
export class VerifyAttemptEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  diamond_id!: string;

  @Column('text')
  lab_participant_id!: string;

  @Column('text', { nullable: true })
  lab_client_id!: string | null;

  /** The members of the lab's body that verify compares. */
  @Column('jsonb')
  request!: { carat_weight: number; shape_group: string };

  @Column('text')
  outcome!: 'success' | 'failure' | 'not_found' | 'deleted' | 'ineligible';

  @Column('integer')
  http_status!: number;

  @Column('jsonb')
  response!: unknown;

  @Column('timestamptz')
  created_at!: Date;
}
