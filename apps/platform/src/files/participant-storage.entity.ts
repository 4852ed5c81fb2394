import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** `participant_storage` (migration 1764374400000-participant-storage): bytes of files each participant attached. */
@Entity({ name: 'participant_storage' })
@Check('participant_storage_bytes_check', `bytes >= 0`)
export class ParticipantStorageEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'participant_storage_pkey' })
  participant_id!: string;

  /** bigint: text, as pg returns it. */
  @Column('bigint', { default: 0 })
  bytes!: string;

  @Column('timestamptz', { default: () => 'now()' })
  updated_at!: Date;
}
