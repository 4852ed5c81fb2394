import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { DiamondV1 } from '@dtp/domain';
import { jsonArrayText, jsonElements, type Sql } from '@dtp/database';
import { filesOf, IndexedFile } from './file-index';

type Queryable = Pick<EntityManager, 'query'> | Pick<DataSource, 'query'>;

/**
 * `upsertMany`'s statement: the conditional upserts, then (only for those that applied) the file indexes replaced: the
 * hashes a new version no longer has deleted, its own inserted or updated (two sub-statements never touch the same
 * row; filesOf() gives one entry per hash). The records travel as one JSON array (jsonArrayText: nothing to escape)
 * and each is stored as json, its text as sent: its key order is kept.
 */
const UPSERT_MANY_SQL = `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], ${jsonElements('$5', 'json')}, ${jsonElements('$6', 'jsonb')})
           AS i(diamond_id, revision, version_id, parent_id, record, files)
       ), up AS (
         INSERT INTO search_diamonds (diamond_id, revision, version_id, parent_id, record, deleted_at)
         SELECT diamond_id, revision, version_id, parent_id, record, NULL FROM input
         ON CONFLICT (diamond_id) DO UPDATE
           SET revision = EXCLUDED.revision, version_id = EXCLUDED.version_id, parent_id = EXCLUDED.parent_id,
               record = EXCLUDED.record, deleted_at = NULL, updated_at = clock_timestamp()
           WHERE search_diamonds.revision < EXCLUDED.revision
         RETURNING diamond_id
       ), applied AS (
         SELECT input.diamond_id, input.files FROM input JOIN up USING (diamond_id)
       ), gone AS (
         DELETE FROM search_files f USING applied a
         WHERE f.diamond_id = a.diamond_id AND f.hash NOT IN (SELECT x.hash FROM jsonb_to_recordset(a.files) AS x(hash text))
       ), added AS (
         INSERT INTO search_files (diamond_id, hash, content_type, filename, size)
         SELECT a.diamond_id, f.hash, f.content_type, f.filename, f.size
         FROM applied a, jsonb_to_recordset(a.files) AS f(hash text, content_type text, filename text, size bigint)
         ON CONFLICT (diamond_id, hash) DO UPDATE
           SET content_type = EXCLUDED.content_type, filename = EXCLUDED.filename, size = EXCLUDED.size
       )
       SELECT diamond_id FROM up`;

/** Parameterised SQL with prepared statements (the consumer's `ctx.tx`), as opposed to TypeORM's `query`. */
const isSql = (m: Queryable | Sql): m is Sql => typeof (m as Partial<Sql>).rows === 'function';

/**
 * A diamond ($1) and its ancestors, by depth: each step looks the parent up by its `diamond_id` (the primary key), from
 * child to parent; nothing walks the other way, so `parent_id` has no index (migration 1765677600000).
 */
export const ANCESTORS_SQL = `WITH RECURSIVE chain AS (
   SELECT d.diamond_id, d.parent_id, d.record, 0 AS depth, ARRAY[d.diamond_id] AS seen
   FROM search_diamonds d WHERE d.diamond_id = $1 AND d.record IS NOT NULL
   UNION ALL
   SELECT p.diamond_id, p.parent_id, p.record, c.depth + 1, c.seen || p.diamond_id
   FROM chain c JOIN search_diamonds p ON p.diamond_id = c.parent_id
   WHERE p.record IS NOT NULL AND c.depth < 1000 AND NOT p.diamond_id = ANY(c.seen)
 )
 SELECT depth, record FROM chain ORDER BY depth`;

/** The SQL of the search read model (tables from SearchReadModel1763900000000). */
@Injectable()
export class ReadModelRepository {
  constructor(@Inject(DataSource) private readonly db: Queryable) {}

  /**
   * Stores `record` as the current state of its diamond when `revision` is newer than the held one (a row or a
   * deletion marker). Replaces its file index. Returns false when the held revision was newer or equal.
   */
  async upsert(record: DiamondV1, revision: number, manager: Queryable = this.db): Promise<boolean> {
    return (await this.upsertMany([{ record, revision }], manager)).has(record.diamond_id);
  }

  /**
   * `upsert` for several diamonds (distinct ids) in ONE statement: each record is stored when its revision is
   * newer than the held one, and then its file index replaced. Returns the ids whose record was stored. `manager` is
   * TypeORM's (the statement sent as it is) or a unit of work's Sql (prepared once per connection).
   */
  async upsertMany(items: readonly { record: DiamondV1; revision: number }[], manager: Queryable | Sql = this.db): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const ids = items.map((i) => i.record.diamond_id);
    if (new Set(ids).size !== ids.length) throw new Error('upsertMany: the same diamond twice in one call');
    // On a unit of work's Sql (the consumer's ctx.tx) the statement is prepared once per connection: PostgreSQL
    // parsed and planned its five CTEs for every batch, about 450 us of its CPU for ten records (docs/search.md
    // "Performance"). A plan kept this way is made again when ANALYZE changes the tables' statistics.
    const values = [
      ids,
      items.map((i) => i.revision),
      items.map((i) => i.record.version_id),
      items.map((i) => i.record.diamond_parent_id ?? null),
      jsonArrayText(items.map((i) => JSON.stringify(i.record))),
      jsonArrayText(items.map((i) => JSON.stringify(filesOf(i.record)))),
    ];
    const rows = isSql(manager)
      ? await manager.rows<{ diamond_id: string }>(UPSERT_MANY_SQL, values, 'search_upsert_many')
      : ((await manager.query(UPSERT_MANY_SQL, values)) as { diamond_id: string }[]);
    return new Set(rows.map((r) => r.diamond_id));
  }

  /** Replaces a diamond by its deletion marker (keeps `revision`); drops its file index. */
  async markDeleted(diamondId: string, revision: number, manager: Queryable = this.db): Promise<boolean> {
    const rows = (await manager.query(
      `INSERT INTO search_diamonds (diamond_id, revision, version_id, parent_id, record, deleted_at)
       VALUES ($1, $2, NULL, NULL, NULL, clock_timestamp())
       ON CONFLICT (diamond_id) DO UPDATE
         SET revision = EXCLUDED.revision, version_id = NULL, record = NULL,
             deleted_at = COALESCE(search_diamonds.deleted_at, EXCLUDED.deleted_at), updated_at = clock_timestamp()
         WHERE search_diamonds.revision < EXCLUDED.revision
       RETURNING diamond_id`,
      [diamondId, revision],
    )) as unknown[];
    await manager.query('DELETE FROM search_files WHERE diamond_id = $1', [diamondId]);
    return rows.length > 0;
  }

  /** A tombstone (compacted topic): the diamond is gone whatever revision we hold; the marker keeps it. */
  async applyTombstone(diamondId: string, manager: Queryable = this.db): Promise<void> {
    await manager.query(
      `INSERT INTO search_diamonds (diamond_id, revision, version_id, parent_id, record, deleted_at)
       VALUES ($1, 0, NULL, NULL, NULL, clock_timestamp())
       ON CONFLICT (diamond_id) DO UPDATE
         SET version_id = NULL, record = NULL, deleted_at = COALESCE(search_diamonds.deleted_at, EXCLUDED.deleted_at),
             updated_at = clock_timestamp()`,
      [diamondId],
    );
    await manager.query('DELETE FROM search_files WHERE diamond_id = $1', [diamondId]);
  }

  /** The current record, or null when unknown or deleted. */
  async find(diamondId: string): Promise<DiamondV1 | null> {
    const rows = (await this.db.query('SELECT record FROM search_diamonds WHERE diamond_id = $1 AND record IS NOT NULL', [diamondId])) as {
      record: DiamondV1;
    }[];
    return rows[0]?.record ?? null;
  }

  /** The current records of many diamonds in one query, by id (unknown or deleted ones are absent). */
  async findMany(diamondIds: readonly string[]): Promise<Map<string, DiamondV1>> {
    if (diamondIds.length === 0) return new Map();
    const rows = (await this.db.query('SELECT diamond_id, record FROM search_diamonds WHERE diamond_id = ANY($1::text[]) AND record IS NOT NULL', [
      [...new Set(diamondIds)],
    ])) as { diamond_id: string; record: DiamondV1 }[];
    return new Map(rows.map((r) => [r.diamond_id, r.record]));
  }

  /**
   * Ancestors of a current diamond, nearest first (recursive CTE over parent_id; stops at an unknown or deleted
   * ancestor and at 1,000 levels). Null when the diamond itself is unknown or deleted.
   */
  async ancestors(diamondId: string): Promise<DiamondV1[] | null> {
    const rows = (await this.db.query(ANCESTORS_SQL, [diamondId])) as { depth: number; record: DiamondV1 }[];
    if (rows.length === 0) return null;
    return rows.filter((r) => r.depth > 0).map((r) => r.record);
  }

  /** The index entry of `hash` on a current diamond, or null. */
  async findFile(diamondId: string, hash: string): Promise<IndexedFile | null> {
    const rows = (await this.db.query(
      `SELECT f.hash, f.content_type, f.filename, f.size
       FROM search_files f JOIN search_diamonds d ON d.diamond_id = f.diamond_id
       WHERE f.diamond_id = $1 AND f.hash = $2 AND d.record IS NOT NULL`,
      [diamondId, hash],
    )) as { hash: string; content_type: string | null; filename: string | null; size: string | null }[];
    const r = rows[0];
    if (!r) return null;
    return { hash: r.hash, content_type: r.content_type, filename: r.filename, size: r.size === null ? null : Number(r.size) };
  }

  /** Current (not deleted) diamonds. */
  async count(): Promise<number> {
    const rows = (await this.db.query('SELECT count(*)::int AS n FROM search_diamonds WHERE record IS NOT NULL')) as { n: number }[];
    return rows[0].n;
  }

  /** (diamond_id, version_id) of every current diamond: comparisons with the platform's records. */
  async versions(): Promise<Map<string, string>> {
    const rows = (await this.db.query('SELECT diamond_id, version_id FROM search_diamonds WHERE record IS NOT NULL')) as {
      diamond_id: string;
      version_id: string;
    }[];
    return new Map(rows.map((r) => [r.diamond_id, r.version_id]));
  }

  /** Empties the read model and the consumer's progress for `consumer` (rebuild), in one transaction. */
  static async reset(ds: DataSource, consumer: string): Promise<void> {
    await ds.transaction(async (manager) => {
      await manager.query('TRUNCATE search_files, search_diamonds');
      await manager.query('DELETE FROM consumer_state WHERE consumer = $1', [consumer]);
    });
  }
}
