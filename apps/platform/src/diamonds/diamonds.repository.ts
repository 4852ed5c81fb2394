import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { outboxInsert, OutboxEvent } from '@dtp/events';
import { Sql, Tx } from '@dtp/database';
import { custodyInsert, NewCustodyEntry } from '../custody/custody-entry';
import { diamondUpdatedEvents, participantEventsCtes } from '../webhooks/participant-events';
import { DIAMOND_COLUMNS, DIAMOND_JSON_COLUMNS, DiamondEntity, DiamondRow } from './diamond.entity';

const param = (col: keyof DiamondRow, i: number) => (DIAMOND_JSON_COLUMNS.has(col) ? `$${i}::jsonb` : `$${i}`);
const DIAMOND_COLUMN_LIST = DIAMOND_COLUMNS.join(', ');
const rowLists = new Map<number, string>();

/** The VALUES rows of `n` new diamonds, parameters $1 on (built once per n). */
export function diamondRows(n: number): string {
  let text = rowLists.get(n);
  if (text === undefined) {
    const row = (k: number) => `(${DIAMOND_COLUMNS.map((c, i) => param(c, k * DIAMOND_COLUMNS.length + i + 1)).join(', ')})`;
    rowLists.set(n, (text = Array.from({ length: n }, (_, k) => row(k)).join(', ')));
  }
  return text;
}

/** One new diamond as the hot path writes it: the row, its first custody entry and its outbox events. */
export interface NewDiamondWrite {
  row: DiamondRow;
  events: OutboxEvent[];
  entry: NewCustodyEntry;
}

/**
 * A column's parameter: JSON columns as their text; dates (all `timestamptz` here) as ISO 8601 text, which means the
 * same instant to PostgreSQL as the local-time text the driver would write for the Date, at a fraction of its cost.
 */
function value(row: DiamondRow, col: keyof DiamondRow): unknown {
  const v = row[col];
  if (v instanceof Date) return v.toISOString();
  return DIAMOND_JSON_COLUMNS.has(col) && v !== null ? JSON.stringify(v) : v;
}

/** A new diamond's parameters for `diamondRows`, in DIAMOND_COLUMNS order (`value` of each column). */
export function diamondRowValues(row: DiamondRow): unknown[] {
  return DIAMOND_COLUMNS.map((c) => value(row, c));
}

/** A diamond in a subtree query, with its depth below the root (root = 0). */
export interface SubtreeMember {
  diamond_id: string;
  participant_id: string | null;
  uploader_id: string;
  holder_id: string;
  unlock_status: DiamondRow['unlock_status'];
  possession_state: DiamondRow['possession_state'];
  revision: string;
  custody_head: string | null;
  depth: number;
}

/**
 * `diamonds` (DiamondEntity). Nearly all raw SQL, each method saying why: the registration hot path, row locks in a
 * stable order, recursive and aggregate queries, many-row updates in one statement. Methods take the Sql of the
 * caller's transaction (or the pool).
 */
@Injectable()
export class DiamondsRepository {
  // raw SQL: registration hot path, one prepared statement (diamond + custody entry + outbox, a CTE); see bench platform.
  /**
   * Inserts a new diamond, its first custody entry and its outbox events in ONE statement (data-modifying CTEs),
   * so the hot path costs one round trip and one implicit transaction: all rows exist or none does. A duplicate
   * (box_scope, box_id, participant_id) fails the whole statement with a unique violation.
   */
  async insertWithOutbox(sql: Sql, row: DiamondRow, events: OutboxEvent[], entry: NewCustodyEntry): Promise<void> {
    await this.insertManyWithOutbox(sql, [{ row, events, entry }]);
  }

  // raw SQL: the same statement for several diamonds (RegistrationWriter: registrations that arrive together).
  /**
   * `insertWithOutbox` for several new diamonds in ONE statement and one implicit transaction: every diamond,
   * entry and event is written, or none is (any one row's unique violation fails them all). Prepared per shape
   * (diamonds, events), so a connection prepares each batch size once.
   */
  async insertManyWithOutbox(sql: Sql, writes: NewDiamondWrite[]): Promise<void> {
    const values: unknown[] = [];
    for (const { row } of writes) for (const c of DIAMOND_COLUMNS) values.push(value(row, c));
    const custody = custodyInsert(
      writes.map((w) => w.entry),
      values.length + 1,
    );
    // dtp.diamond.updated for each new diamond's holder (= uploader): the event feed and webhook deliveries.
    const changed = diamondUpdatedEvents({
      rows: writes.map((w) => w.row),
      entries: writes.map((w) => w.entry),
      events: writes.length === 1 ? writes[0].events : writes.flatMap((w) => w.events),
    });
    const events = changed.outbox;
    const outbox = outboxInsert(events, values.length + custody.values.length + 1);
    const notices = participantEventsCtes(changed.notices, values.length + custody.values.length + outbox.values.length + 1);
    await sql.exec(
      `WITH d AS (INSERT INTO diamonds (${DIAMOND_COLUMN_LIST}) VALUES ${diamondRows(writes.length)}), e AS (${custody.sql}), ${notices.sql} ${outbox.sql}`,
      [...values, ...custody.values, ...outbox.values, ...notices.values],
      writes.length === 1
        ? `diamond_insert_with_entry_and_${events.length}_events`
        : `diamonds_${writes.length}_insert_with_entries_and_${events.length}_events`,
    );
  }

  // raw SQL: every diamond endpoint's first read, FOR UPDATE when asked, on the caller's Sql (pool or transaction).
  async find(sql: Sql, diamondId: string, opts: { lock?: boolean } = {}): Promise<DiamondRow | null> {
    const rows = await sql.rows<DiamondRow>(`SELECT * FROM diamonds WHERE diamond_id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [diamondId]);
    return rows[0] ?? null;
  }

  // raw SQL: FOR SHARE.
  /** True when the diamond exists; the row is share-locked (it cannot be deleted until the transaction ends). */
  async existsForShare(sql: Sql, diamondId: string): Promise<boolean> {
    const rows = await sql.rows<{ diamond_id: string }>(`SELECT diamond_id FROM diamonds WHERE diamond_id = $1 FOR SHARE`, [diamondId]);
    return rows.length > 0;
  }

  // raw SQL: FOR UPDATE in id order, on the partial index diamonds_provenance_pending.
  /** A producer's diamonds still waiting for its declared provenance, locked in id order. */
  async pendingProvenanceOf(sql: Sql, uploaderId: string): Promise<DiamondRow[]> {
    return sql.rows<DiamondRow>(`SELECT * FROM diamonds WHERE uploader_id = $1 AND provenance_pending ORDER BY diamond_id FOR UPDATE`, [uploaderId]);
  }

  // raw SQL: an aggregate over a JSONB member.
  /**
   * Of the given diamonds, the root ones (no parent) counted and weighed per box they were registered against:
   * what their deletion gives back to a shipment (boxes that are no shipment are ignored by the shipments side).
   */
  async registrationsByBox(sql: Sql, diamondIds: string[]): Promise<{ box_scope: string; n: number; carats: string }[]> {
    return sql.rows(
      `SELECT box_scope, count(*)::int AS n, coalesce(sum((rough->>'carats')::numeric), 0)::text AS carats
         FROM diamonds
        WHERE diamond_id = ANY($1::text[]) AND diamond_parent_id IS NULL AND box_scope IS NOT NULL
        GROUP BY box_scope`,
      [diamondIds],
    );
  }

  // raw SQL: the statement built from DIAMOND_COLUMNS, JSONB cast in place (DiamondChanges: every change of a diamond).
  /**
   * Writes the given columns of `row` (its diamond_id selects the row), with the change's custody entries and
   * outbox events folded into the same statement (CTEs): one round trip.
   */
  async update(sql: Sql, row: DiamondRow, columns: readonly (keyof DiamondRow)[], entries: NewCustodyEntry[] = [], events: OutboxEvent[] = []): Promise<void> {
    const sets = columns.map((c, i) => `${c} = ${param(c, i + 2)}`);
    const values = [row.diamond_id, ...columns.map((c) => value(row, c))];
    const { sql: text, values: all } = withInserts(`UPDATE diamonds SET ${sets.join(', ')} WHERE diamond_id = $1`, values, [row], entries, events);
    const n = await sql.exec(text, all);
    if (n !== 1) throw new Error(`diamond ${row.diamond_id} vanished during an update`);
  }

  // raw SQL: FOR UPDATE in a stable order.
  /** The given diamonds, locked FOR UPDATE in a stable order (diamond_id), so two writers never deadlock. */
  async findManyForUpdate(sql: Sql, ids: string[]): Promise<DiamondRow[]> {
    return sql.rows<DiamondRow>(`SELECT * FROM diamonds WHERE diamond_id = ANY($1::text[]) ORDER BY diamond_id FOR UPDATE`, [ids]);
  }

  // raw SQL: up to 1,000 rows in one UPDATE from a JSON recordset (the ORM would send one UPDATE per row).
  /**
   * Writes the given columns of many rows in one statement (each row's diamond_id selects it), with their custody
   * entries and outbox events folded in (CTEs).
   */
  async updateMany(
    sql: Sql,
    rows: DiamondRow[],
    columns: readonly (keyof DiamondRow)[],
    entries: NewCustodyEntry[] = [],
    events: OutboxEvent[] = [],
  ): Promise<void> {
    if (rows.length === 0) return;
    const sets = columns.map((c) => `${c} = v.${c}`).join(', ');
    const data = rows.map((r) => Object.fromEntries(['diamond_id', ...columns].map((c) => [c, r[c as keyof DiamondRow]])));
    const { sql: text, values } = withInserts(
      `UPDATE diamonds d SET ${sets} FROM jsonb_populate_recordset(NULL::diamonds, $1::jsonb) v WHERE d.diamond_id = v.diamond_id`,
      [JSON.stringify(data)],
      rows,
      entries,
      events,
    );
    const n = await sql.exec(text, values);
    if (n !== rows.length) throw new Error(`updated ${n} of ${rows.length} diamonds: some vanished during an update`);
  }

  // raw SQL: a recursive CTE.
  /** The root and every descendant (diamond_parent_id links), root first, ordered by depth. */
  async subtree(sql: Sql, rootId: string): Promise<SubtreeMember[]> {
    return sql.rows<SubtreeMember>(
      `WITH RECURSIVE t AS (
         SELECT diamond_id, participant_id, uploader_id, holder_id, unlock_status, possession_state, revision, custody_head, 0 AS depth
           FROM diamonds WHERE diamond_id = $1
         UNION ALL
         SELECT c.diamond_id, c.participant_id, c.uploader_id, c.holder_id, c.unlock_status, c.possession_state, c.revision, c.custody_head, t.depth + 1
           FROM diamonds c JOIN t ON c.diamond_parent_id = t.diamond_id
       )
       SELECT * FROM t ORDER BY depth, diamond_id`,
      [rootId],
    );
  }

  // raw SQL: FOR UPDATE in a stable order.
  /** Locks the given rows (in a stable order, so two deleters never deadlock) and returns which still exist. */
  async lockMany(sql: Sql, ids: string[]): Promise<string[]> {
    const rows = await sql.rows<{ diamond_id: string }>(`SELECT diamond_id FROM diamonds WHERE diamond_id = ANY($1::text[]) ORDER BY diamond_id FOR UPDATE`, [
      ids,
    ]);
    return rows.map((r) => r.diamond_id);
  }

  /** Deletes the rows (graded measurements go with them: ON DELETE CASCADE). */
  async deleteMany(tx: Tx, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return (await tx.manager.delete(DiamondEntity, { diamond_id: In(ids) })).affected ?? 0;
  }
}

/**
 * `main` (an UPDATE or INSERT whose row count the caller checks) with custody entries, outbox rows and the
 * participants' `dtp.diamond.updated` events (for the holder and uploader of `rows`, as changed) inserted by CTEs.
 */
function withInserts(
  main: string,
  values: unknown[],
  rows: DiamondRow[],
  entries: NewCustodyEntry[],
  events: OutboxEvent[],
): { sql: string; values: unknown[] } {
  const ctes: string[] = [];
  const all = [...values];
  if (entries.length > 0) {
    const c = custodyInsert(entries, all.length + 1);
    ctes.push(`e AS (${c.sql})`);
    all.push(...c.values);
  }
  if (events.length > 0) {
    const { notices, outbox } = diamondUpdatedEvents({ rows, entries, events });
    const o = outboxInsert(outbox, all.length + 1);
    ctes.push(`o AS (${o.sql})`);
    all.push(...o.values);
    if (notices.length > 0) {
      const n = participantEventsCtes(notices, all.length + 1);
      ctes.push(n.sql);
      all.push(...n.values);
    }
  }
  return { sql: ctes.length > 0 ? `WITH ${ctes.join(', ')} ${main}` : main, values: all };
}
