import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { JWK } from 'jose';

/**
 * A token signing key. `private_jwk` holds the private key as a JWK (JSON text), or NULL once the key has left the
 * JWKS for good. Production should keep it in a KMS or an encrypted column (docs/auth.md).
 */
@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn('text')
  kid!: string;

  @Column('text')
  alg!: string;

  @Column('jsonb')
  public_jwk!: JWK;

  @Column('text', { nullable: true, select: false })
  private_jwk!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  retired_at!: Date | null;

  /** Generated column in the database (`retired_at IS NULL`); read only. */
  @Column({ type: 'boolean', insert: false, update: false })
  active!: boolean;
}
