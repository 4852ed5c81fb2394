import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** One OAuth client credential of a participant. Only a scrypt hash of the secret is stored. */
@Entity({ name: 'clients' })
export class ClientEntity {
  @PrimaryColumn('text')
  client_id!: string;

  @Column('uuid')
  participant_id!: string;

  /** `scrypt$N$r$p$salt$hash` (base64url salt and hash); see secret-hash.ts. */
  @Column('text')
  secret_hash!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  revoked_at!: Date | null;
}
