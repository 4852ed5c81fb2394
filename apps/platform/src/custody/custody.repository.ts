import { Injectable } from '@nestjs/common';
import type { CustodyEntryContext, IndexedCustodyEntry } from '@dtp/domain';
import type { Sql } from '@dtp/database';
import { entryFields } from './custody-entry';
import type { CustodyCheckpointEntity, CustodyEntryEntity } from './custody.entity';

/**
 * A stored checkpoint (CustodyCheckpointEntity) as the checkpointer works with it: the bigint counters as numbers,
 * and the frontier, the hashes of the perfect nodes that make up the tree [0, tree_size), left to right
 * (`rangeNodes(0, tree_size)`), all it needs to append the next leaves (platform keeps no other part of the tree).
 */
export type CheckpointRow = Omit<CustodyCheckpointEntity, 'number' | 'tree_size' | 'frontier' | 'created_at'> & {
  number: number;
  tree_size: number;
  frontier: Buffer[];
};

/** The columns of an entry the checkpointer reads. */
type EntryRow = Omit<CustodyEntryEntity, 'leaf_index'>;

/** An entry waiting for its leaf index. */
export interface PendingEntry {
  seq: string;
  entry: IndexedCustodyEntry['entry'];
  entry_hash: string;
  context: CustodyEntryContext | null;
}

/** The checkpointer's SQL on the custody tables (raw SQL: arrays through unnest, one statement per step). */
@Injectable()
export class CustodyRepository {
  async latestCheckpoint(sql: Sql): Promise<CheckpointRow | null> {
    const rows = await sql.rows<Omit<CustodyCheckpointEntity, 'created_at'>>(
      `SELECT number, tree_size, root_hash, timestamp, kid, jws, frontier FROM custody_checkpoints ORDER BY number DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? { ...row, number: Number(row.number), tree_size: Number(row.tree_size), frontier: row.frontier ?? [] } : null;
  }

  /**
   * Up to `limit` entries not in the tree yet, in seq order. Only committed ones are visible; one that commits
   * after a later seq was taken simply goes into a later checkpoint (the tree never has a gap).
   */
  async pending(sql: Sql, limit: number): Promise<PendingEntry[]> {
    const rows = await sql.rows<EntryRow>(
      `SELECT seq, diamond_id, version_id, action, actor_participant_id, occurred_at, record_sha256, prev_entry_hash, links, entry_hash, context
         FROM custody_entries WHERE leaf_index IS NULL ORDER BY seq LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ seq: r.seq, entry: entryFields(r), entry_hash: r.entry_hash, context: r.context }));
  }

  async pendingCount(sql: Sql): Promise<number> {
    const [row] = await sql.rows<{ n: string }>(`SELECT count(*) AS n FROM custody_entries WHERE leaf_index IS NULL`);
    return Number(row.n);
  }

  async assignLeaves(sql: Sql, seqs: string[], firstIndex: number): Promise<void> {
    const n = await sql.exec(
      `UPDATE custody_entries e SET leaf_index = v.leaf FROM unnest($1::bigint[], $2::bigint[]) v(seq, leaf) WHERE e.seq = v.seq AND e.leaf_index IS NULL`,
      [seqs, seqs.map((_s, i) => firstIndex + i)],
    );
    if (n !== seqs.length) throw new Error(`custody: assigned ${n} of ${seqs.length} leaf indices`);
  }

  /** The checkpoints of one round, in number order, in one statement. */
  async insertCheckpoints(sql: Sql, rows: CheckpointRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values: unknown[] = [];
    const tuples = rows.map((c, i) => {
      values.push(c.number, c.tree_size, c.root_hash, c.timestamp, c.kid, c.jws, c.frontier);
      const o = i * 7;
      return `($${o + 1}::bigint, $${o + 2}::bigint, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7}::bytea[])`;
    });
    await sql.query(`INSERT INTO custody_checkpoints (number, tree_size, root_hash, timestamp, kid, jws, frontier) VALUES ${tuples.join(', ')}`, values);
  }
}
