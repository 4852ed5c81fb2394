import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * `diamond_shares` (migration 1764720000000-diamond-shares): the passport links of diamonds. Property names are the
 * column names, so a raw-SQL row (`SELECT *`) is a ShareRow as it is. No foreign key to diamonds: a link's events
 * outlive the diamond.
 */
@Entity({ name: 'diamond_shares' })
@Index('diamond_shares_diamond', ['diamond_id'])
export class DiamondShareEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'diamond_shares_pkey' })
  share_id!: string;

  @Column('text')
  diamond_id!: string;

  @Column('text')
  created_by!: string;

  @Column('timestamptz')
  created_at!: Date;

  @Column('timestamptz', { nullable: true })
  expires_at!: Date | null;

  @Column('timestamptz', { nullable: true })
  revoked_at!: Date | null;

  @Column('text', { nullable: true })
  revoked_by!: string | null;

  /** 1 as created, 2 once revoked (the revision of the link's events). */
  @Column('integer', { default: 1 })
  revision!: number;
}

/** One row of `diamond_shares`. */
export type ShareRow = DiamondShareEntity;
