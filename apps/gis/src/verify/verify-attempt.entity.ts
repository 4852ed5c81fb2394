import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Every verify call that reached the rules (after authentication and body validation). */
@Entity({ name: 'verify_attempts' })
export class VerifyAttemptEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text', { name: 'diamond_id' })
  diamondId!: string;

  @Column('text', { name: 'lab_participant_id' })
  labParticipantId!: string;

  @Column('text', { name: 'lab_client_id', nullable: true })
  labClientId!: string | null;

  /** The members of the lab's body that verify compares. */
  @Column('jsonb')
  request!: { carat_weight: number; shape_group: string };

  @Column('text')
  outcome!: 'success' | 'failure' | 'not_found' | 'deleted' | 'ineligible';

  @Column('integer', { name: 'http_status' })
  httpStatus!: number;

  @Column('jsonb')
  response!: unknown;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
