import { Check, Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { JWK } from 'jose';
import type { CustodyEntry, CustodyEntryContext } from '@dtp/domain';

/**
 * `custody_entries` (migration 1764547200000-custody-log): one entry per change of a diamond, written in the change's
 * statement (custodyInsert); `leaf_index` is set when the checkpointer puts it in the tree. No foreign key to
 * diamonds: a deleted diamond's entries stay (the log is append-only). Property names are the column names.
 */
@Entity({ name: 'custody_entries' })
@Index('custody_entries_pending', ['seq'], { where: 'leaf_index IS NULL' })
export class CustodyEntryEntity {
  /** bigserial: pg returns it as text. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'custody_entries_pkey' })
  seq!: string;

  @Column('text')
  diamond_id!: string;

  @Column('text')
  version_id!: string;

  @Column('text')
  action!: CustodyEntry['action'];

  @Column('text', { nullable: true })
  actor_participant_id!: string | null;

  @Column('text')
  occurred_at!: string;

  @Column('text')
  record_sha256!: string;

  @Column('text', { nullable: true })
  prev_entry_hash!: string | null;

  /** Only on the `registered` entry of a registration against a shipment (migration 1764900000000-custody-links). */
  @Column('text', { array: true, nullable: true })
  links!: string[] | null;

  @Column('text')
  entry_hash!: string;

  @Column('jsonb', { nullable: true })
  context!: CustodyEntryContext | null;

  /** bigint: pg returns it as text. */
  @Column('bigint', { nullable: true })
  leaf_index!: string | null;
}

/** `custody_checkpoints` (migrations 1764547200000-custody-log, 1764806400000-custody-frontier: frontier). */
@Entity({ name: 'custody_checkpoints' })
@Check('custody_checkpoints_number_check', `number >= 1`)
@Check('custody_checkpoints_tree_size_check', `tree_size >= 0`)
export class CustodyCheckpointEntity {
  /** bigint: pg returns it as text. */
  @PrimaryColumn('bigint', { primaryKeyConstraintName: 'custody_checkpoints_pkey' })
  number!: string;

  @Column('bigint')
  tree_size!: string;

  @Column('text')
  root_hash!: string;

  @Column('text')
  timestamp!: string;

  @Column('text')
  kid!: string;

  @Column('text')
  jws!: string;

  @Column('timestamptz', { default: () => 'now()' })
  created_at!: Date;

  /** The hashes of the perfect nodes that make up the tree [0, tree_size), left to right. */
  @Column('bytea', { array: true, nullable: true })
  frontier!: Buffer[] | null;
}

/** `custody_signing_keys` (migration 1764547200000-custody-log): the checkpoint signing keys platform generated. */
@Entity({ name: 'custody_signing_keys' })
export class CustodySigningKeyEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'custody_signing_keys_pkey' })
  kid!: string;

  @Column('jsonb')
  public_jwk!: JWK;

  @Column('jsonb')
  private_jwk!: JWK;

  @Column('timestamptz', { default: () => 'now()' })
  created_at!: Date;
}
