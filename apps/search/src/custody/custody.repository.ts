import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  appendLeaves,
  CustodyCheckpoint,
  CustodyEntry,
  CustodyEntryContext,
  entryHash,
  entryMembers,
  Hash,
  IndexedCustodyEntry,
  leafHash,
  NodeKey,
  nodeKeyString,
  rangeNodes,
  rootOf,
} from '@dtp/domain';
import { jsonArrayText, jsonElements } from '@dtp/database';

type Queryable = Pick<EntityManager, 'query'> | Pick<DataSource, 'query'>;

/** Why a `custody.checkpoint` cannot be applied (the handler parks it with this reason). */
export class CustodyRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'CustodyRefusal';
  }
}

export interface AppliedCheckpoint {
  /** Entries appended by this checkpoint (redelivered ones already held are not counted). */
  appended: number;
  /** Leaves held after it. */
  size: number;
  /** Search's own root of the checkpoint's tree size (hex). */
  root: string;
  rootMatches: boolean;
}

export interface StoredCheckpoint extends CustodyCheckpoint {
  number: number;
}

interface EntryRow {
  leaf_index: string;
  entry: CustodyEntry;
  entry_hash: string;
  context: CustodyEntryContext | null;
}

/** The order of an entry's members as DESIGN.md lists them (jsonb keeps its own key order); `links` only when present. */
const entryInOrder = (e: CustodyEntry): CustodyEntry => entryMembers(e);

const toIndexed = (r: EntryRow): IndexedCustodyEntry => ({
  entry: entryInOrder(r.entry),
  entry_hash: r.entry_hash,
  leaf_index: Number(r.leaf_index),
  ...(r.context ? { context: r.context } : {}),
});

/** Serialises every append to the tree (one log, one writer at a time, whatever the replicas or a rebuild do). */
const TREE_LOCK = 0x637573746f6479; // "custody"

/**
 * All SQL on search's copy of the custody log (tables from CustodyLog1764700000000): appending a checkpoint's
 * entries to the Merkle tree (perfect nodes, RFC 9162 hashing from @dtp/domain), and the reads the routes need.
 */
@Injectable()
export class CustodyRepository {
  constructor(@Inject(DataSource) private readonly db: Queryable) {}

  /**
   * Applies one checkpoint (number = the event's revision) inside the caller's transaction: checks that its
   * entries continue the tree (entries already held must be the same ones: a redelivery), appends the new ones,
   * computes the root of `tree_size` and stores the checkpoint with whether it matched. Throws CustodyRefusal
   * when the event cannot be applied (a gap, a conflicting entry, a wrong entry hash, another log).
   */
  async applyCheckpoint(checkpoint: CustodyCheckpoint, number: number, entries: IndexedCustodyEntry[], tx: Queryable): Promise<AppliedCheckpoint> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [TREE_LOCK]);
    const otherLog = (await tx.query('SELECT log_id FROM custody_checkpoints WHERE log_id <> $1 LIMIT 1', [checkpoint.log_id])) as { log_id: string }[];
    if (otherLog.length > 0) throw new CustodyRefusal(`search follows custody log ${otherLog[0].log_id}, not ${checkpoint.log_id}`);

    const first = entries[0]?.leaf_index ?? 0;
    entries.forEach((e, i) => {
      if (e.leaf_index !== first + i) throw new CustodyRefusal(`entries are not contiguous: leaf ${e.leaf_index} at position ${i} after leaf ${first}`);
      if (entryHash(e.entry) !== e.entry_hash) throw new CustodyRefusal(`entry_hash of leaf ${e.leaf_index} is not the SHA-256 of its canonical entry`);
    });
    const size = await this.size(tx);

    // Entries already held: a redelivery (or a replay after a reset of the consumer's progress) must repeat them exactly.
    const held = entries.filter((e) => e.leaf_index < size);
    if (held.length > 0) {
      const rows = (await tx.query('SELECT leaf_index, entry_hash FROM custody_entries WHERE leaf_index = ANY($1::bigint[])', [
        held.map((e) => e.leaf_index),
      ])) as {
        leaf_index: string;
        entry_hash: string;
      }[];
      const byLeaf = new Map(rows.map((r) => [Number(r.leaf_index), r.entry_hash]));
      const conflict = held.find((e) => byLeaf.get(e.leaf_index) !== e.entry_hash);
      if (conflict) throw new CustodyRefusal(`leaf ${conflict.leaf_index} conflicts with the entry search holds there (the log would fork)`);
    }
    const fresh = entries.filter((e) => e.leaf_index >= size);
    if (fresh.length > 0 && fresh[0].leaf_index !== size) {
      throw new CustodyRefusal(`gap in the custody log: the checkpoint's entries start at leaf ${fresh[0].leaf_index}, search holds ${size} leaves`);
    }
    const newSize = size + fresh.length;
    if (checkpoint.tree_size > newSize) {
      throw new CustodyRefusal(`gap in the custody log: checkpoint ${number} covers ${checkpoint.tree_size} leaves, search would hold ${newSize}`);
    }
    if (entries.length > 0 && checkpoint.tree_size < first + entries.length) {
      throw new CustodyRefusal(`checkpoint ${number} covers ${checkpoint.tree_size} leaves but carries leaf ${first + entries.length - 1}`);
    }

    let lookup: (k: NodeKey) => Hash | undefined = () => undefined;
    if (fresh.length > 0) {
      const frontier = size > 0 ? await this.nodes(rangeNodes(0, size), tx) : new Map<string, Hash>();
      const appended = appendLeaves(
        size,
        fresh.map((e) => leafHash(Buffer.from(e.entry_hash, 'hex'))),
        (k) => frontier.get(nodeKeyString(k)),
      );
      lookup = appended.lookup;
      await tx.query(
        `INSERT INTO custody_entries (leaf_index, diamond_id, entry, entry_hash, context)
         SELECT * FROM unnest($1::bigint[], $2::text[], ${jsonElements('$3', 'jsonb')}, $4::text[], ${jsonElements('$5', 'jsonb')})`,
        [
          fresh.map((e) => e.leaf_index),
          fresh.map((e) => e.entry.diamond_id),
          jsonArrayText(fresh.map((e) => JSON.stringify(entryInOrder(e.entry)))),
          fresh.map((e) => e.entry_hash),
          jsonArrayText(fresh.map((e) => (e.context ? JSON.stringify(e.context) : null))),
        ],
      );
      await tx.query(`INSERT INTO custody_tree_nodes (level, index, hash) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`, [
        appended.nodes.map((n) => n.key.level),
        appended.nodes.map((n) => n.key.index),
        appended.nodes.map((n) => n.hash),
      ]);
    }
    if (checkpoint.tree_size > 0 && (fresh.length === 0 || checkpoint.tree_size !== newSize)) {
      // No new entries (a refreshed timestamp, a redelivery): the root from the stored nodes.
      const stored = await this.nodes(rangeNodes(0, checkpoint.tree_size), tx);
      lookup = (k) => stored.get(nodeKeyString(k));
    }
    const root = rootOf(checkpoint.tree_size, lookup).toString('hex');
    const rootMatches = root === checkpoint.root_hash;
    await tx.query(
      `INSERT INTO custody_checkpoints (log_id, number, tree_size, root_hash, timestamp, jws, root_matches)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (log_id, number) DO NOTHING`,
      [checkpoint.log_id, number, checkpoint.tree_size, checkpoint.root_hash, checkpoint.timestamp, checkpoint.jws, rootMatches],
    );
    return { appended: fresh.length, size: newSize, root, rootMatches };
  }

  /** Leaves held (the tree has no gaps: the next leaf index). */
  async size(q: Queryable = this.db): Promise<number> {
    const rows = (await q.query('SELECT coalesce(max(leaf_index) + 1, 0) AS n FROM custody_entries')) as { n: string }[];
    return Number(rows[0].n);
  }

  /** The stored perfect nodes among `keys`, in ONE query. */
  async nodes(keys: NodeKey[], q: Queryable = this.db): Promise<Map<string, Hash>> {
    if (keys.length === 0) return new Map();
    const rows = (await q.query(
      `SELECT n.level, n.index, n.hash FROM custody_tree_nodes n
       JOIN unnest($1::smallint[], $2::bigint[]) AS k(level, index) ON n.level = k.level AND n.index = k.index`,
      [keys.map((k) => k.level), keys.map((k) => k.index)],
    )) as { level: number; index: string; hash: Buffer }[];
    return new Map(rows.map((r) => [nodeKeyString({ level: Number(r.level), index: Number(r.index) }), r.hash]));
  }

  /** The latest checkpoint whose root search's tree reproduced (a mismatching one is never served), or null. */
  async latestGoodCheckpoint(): Promise<StoredCheckpoint | null> {
    const rows = (await this.db.query(
      `SELECT number, log_id, tree_size, root_hash, timestamp, jws FROM custody_checkpoints
       WHERE root_matches ORDER BY number DESC LIMIT 1`,
    )) as { number: string; log_id: string; tree_size: string; root_hash: string; timestamp: string; jws: string }[];
    const r = rows[0];
    if (!r) return null;
    return { number: Number(r.number), log_id: r.log_id, tree_size: Number(r.tree_size), root_hash: r.root_hash, timestamp: r.timestamp, jws: r.jws };
  }

  /**
   * The diamond's entries below `treeSize` and the ancestor entries its chain links to: the first entry's
   * `prev_entry_hash` names the parent's entry, and a registration against a shipment `links` the latest entries of
   * the shipped diamonds; each linked diamond's entries up to the linked one are included, and so on to the roots
   * (at most 1,000 generations). A diamond reached along several links contributes its entries up to the latest
   * one linked. Oldest first. Empty when the diamond has no entry below `treeSize`.
   */
  async chain(diamondId: string, treeSize: number): Promise<IndexedCustodyEntry[]> {
    const rows = (await this.db.query(
      `WITH RECURSIVE chain (diamond_id, upto, depth) AS (
         SELECT $1::text, $2::bigint - 1, 0
         UNION ALL
         SELECT p.diamond_id, p.leaf_index, c.depth + 1
         FROM chain c
         CROSS JOIN LATERAL (
           SELECT e.entry FROM custody_entries e
           WHERE e.diamond_id = c.diamond_id AND e.leaf_index <= c.upto ORDER BY e.leaf_index LIMIT 1
         ) f
         CROSS JOIN LATERAL (
           SELECT f.entry->>'prev_entry_hash' AS hash
           UNION ALL
           SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(f.entry->'links') = 'array' THEN f.entry->'links' ELSE '[]'::jsonb END)
         ) l
         JOIN custody_entries p ON p.entry_hash = l.hash
         WHERE c.depth < 1000 AND p.diamond_id <> c.diamond_id AND p.leaf_index < $2::bigint
       ),
       reached AS (SELECT diamond_id, max(upto) AS upto FROM chain GROUP BY diamond_id)
       -- LATERAL (kept a subquery by OFFSET 0, so the planner cannot turn it into a hash join over the whole log on
       -- stale statistics): each diamond's entries by the (diamond_id, leaf_index) index. Links are hashes of
       -- earlier entries, so they cannot cycle.
       SELECT e.leaf_index, e.entry, e.entry_hash, e.context
       FROM reached c
       CROSS JOIN LATERAL (
         SELECT x.leaf_index, x.entry, x.entry_hash, x.context FROM custody_entries x
         WHERE x.diamond_id = c.diamond_id AND x.leaf_index <= c.upto
         OFFSET 0
       ) e
       ORDER BY e.leaf_index`,
      [diamondId, treeSize],
    )) as EntryRow[];
    const entries = rows.map(toIndexed);
    return entries.some((e) => e.entry.diamond_id === diamondId) ? entries : [];
  }

  /**
   * The diamonds whose first entry links to each of `entryHashes` (the outputs of a polish or split), below
   * `treeSize`, by the linked entry's hash, oldest first.
   */
  async childrenOf(entryHashes: string[], treeSize: number): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (entryHashes.length === 0) return out;
    const rows = (await this.db.query(
      `SELECT c.entry->>'prev_entry_hash' AS prev, c.diamond_id
       FROM custody_entries c JOIN custody_entries p ON p.entry_hash = c.entry->>'prev_entry_hash'
       WHERE c.entry->>'prev_entry_hash' = ANY($1::text[]) AND c.leaf_index < $2 AND c.diamond_id <> p.diamond_id
       ORDER BY c.leaf_index`,
      [entryHashes, treeSize],
    )) as { prev: string; diamond_id: string }[];
    for (const r of rows) {
      const list = out.get(r.prev) ?? [];
      if (!list.includes(r.diamond_id)) list.push(r.diamond_id);
      out.set(r.prev, list);
    }
    return out;
  }
}
