import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One OAuth client credential of a participant. Only a scrypt hash of the secret is stored. */
@Entity({ name: 'clients' })
export class ClientEntity {
  @PrimaryColumn('text', { name: 'client_id' })
  clientId!: string;

  @Column('uuid', { name: 'participant_id' })
  participantId!: string;

  /** `scrypt$N$r$p$salt$hash` (base64url salt and hash); see secret-hash.ts. */
  @Column('text', { name: 'secret_hash' })
  secretHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
