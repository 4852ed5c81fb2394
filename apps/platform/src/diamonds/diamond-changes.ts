import { Injectable } from '@nestjs/common';
import { DiamondV1, isDiamondId, newVersionId } from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { Sql, Tx } from '@dtp/database';
import { CustodyChange, custodyEntryOf } from '../custody/custody-entry';
import { diamondUpserted } from './diamond-events';
import { diamondInTransit, diamondNotFound, notHolder } from './diamond-errors';
import { toDiamondV1, toGradingDataView } from './diamond.mapper';
import { DiamondRow } from './diamond.entity';
import { DiamondsRepository, NewDiamondWrite } from './diamonds.repository';
import { GradedMeasurementsRepository } from './graded-measurements.repository';

/** Columns a change may never set through `commit` (identity and bookkeeping). */
type ChangeableColumn = Exclude<keyof DiamondRow, 'diamond_id' | 'legacy_id' | 'version_id' | 'revision' | 'system_timestamp' | 'created_at' | 'custody_head'>;
export type DiamondPatch = Partial<Pick<DiamondRow, ChangeableColumn>>;

/** A committed change: the new record and the hash of its custody entry (the diamond's new custody_head). */
export interface CommittedChange {
  record: DiamondV1;
  entryHash: string;
  /** `JSON.stringify(record)`, as its event carries it (an answer made of the record sends it as it is). */
  recordJson: string;
}

/**
 * Loading a diamond on behalf of its holder, and committing a change to it: every change gets a new version_id,
 * revision + 1, system_timestamp now, one custody log entry (DESIGN.md "Provenance": what, who, the record's hash,
 * linked to the diamond's previous entry) and a `diamond.upserted` outbox row with the whole new record, all in
 * the caller's transaction and in one statement.
 */
@Injectable()
export class DiamondChanges {
  constructor(
    private readonly diamonds: DiamondsRepository,
    private readonly graded: GradedMeasurementsRepository,
  ) {}

  /**
   * The diamond if `caller` holds it (locked FOR UPDATE when asked, to serialise changes to it). 404 when no such
   * diamond exists; 403 naming `action` ("only the holder of diamond X may <action>") when it exists but another
   * participant holds it. A diamond in transit (in a shipment not answered yet) cannot be changed: 409
   * `in_transit`, unless the caller only reads (`readOnly`).
   */
  async loadHeld(sql: Sql, diamondId: string, caller: Caller, opts: { action: string; lock?: boolean; readOnly?: boolean }): Promise<DiamondRow> {
    if (!isDiamondId(diamondId)) throw diamondNotFound();
    const row = await this.diamonds.find(sql, diamondId, opts);
    if (!row) throw diamondNotFound();
    if (row.holder_id !== caller.participantId) throw notHolder(diamondId, opts.action);
    if (!opts.readOnly && row.possession_state === 'in_transit') throw diamondInTransit(diamondId);
    return row;
  }

  /** The DiamondV1 of a stored row, with its active graded measurement. */
  async record(sql: Tx, row: DiamondRow): Promise<DiamondV1> {
    const active = await this.graded.active(sql, row.diamond_id);
    return toDiamondV1(row, active ? toGradingDataView(active) : null);
  }

  /** Applies `patch` to the (locked) row `before` as one new version, with its custody entry and outbox event. */
  async commit(sql: Tx, before: DiamondRow, patch: DiamondPatch, custody: CustodyChange, now: Date = new Date()): Promise<DiamondV1> {
    return (await this.commitChange(sql, before, patch, custody, now)).record;
  }

  /** `commit`, also answering the new entry's hash (a child made in the same transaction links to it). */
  async commitChange(sql: Tx, before: DiamondRow, patch: DiamondPatch, custody: CustodyChange, now: Date = new Date()): Promise<CommittedChange> {
    const revision = Number(before.revision) + 1;
    const after: DiamondRow = { ...before, ...patch, revision, version_id: newVersionId(), system_timestamp: now };
    // The active grading as of this transaction (a select/deselect has already changed it): the record is final
    // before the write, so its hash goes into the same statement.
    const record = await this.record(sql, after);
    const entry = custodyEntryOf(record, custody, before.custody_head);
    after.custody_head = entry.entry_hash;
    const columns = [...(Object.keys(patch) as (keyof DiamondRow)[]), 'revision', 'version_id', 'system_timestamp', 'custody_head'] as const;
    const event = diamondUpserted(record, revision, now);
    await this.diamonds.update(sql, after, columns, [entry], [event]);
    return { record, entryHash: entry.entry_hash, recordJson: event.dataText };
  }

  /**
   * Applies a patch to each of many (locked) rows as one new version each, in one statement (UPDATE, custody
   * entries and outbox rows; transfers of up to 1,000 diamonds). Records come back in the order of `befores`.
   */
  async commitMany(
    sql: Tx,
    befores: DiamondRow[],
    patch: (row: DiamondRow) => DiamondPatch,
    custody: (row: DiamondRow) => CustodyChange,
    now: Date = new Date(),
  ): Promise<DiamondV1[]> {
    if (befores.length === 0) return [];
    const patches = befores.map(patch);
    const columns = [
      ...new Set(patches.flatMap((p) => Object.keys(p) as (keyof DiamondRow)[])),
      'revision',
      'version_id',
      'system_timestamp',
      'custody_head',
    ] as const;
    const afters = befores.map((b, i): DiamondRow => ({
      ...b,
      ...patches[i],
      revision: Number(b.revision) + 1,
      version_id: newVersionId(),
      system_timestamp: now,
    }));
    const active = new Map(
      (
        await this.graded.activeMany(
          sql,
          afters.map((a) => a.diamond_id),
        )
      ).map((g) => [g.diamond_id, toGradingDataView(g)]),
    );
    const records = afters.map((a) => toDiamondV1(a, active.get(a.diamond_id) ?? null));
    const entries = records.map((r, i) => custodyEntryOf(r, custody(befores[i]), befores[i].custody_head));
    afters.forEach((a, i) => (a.custody_head = entries[i].entry_hash));
    await this.diamonds.updateMany(
      sql,
      afters,
      columns,
      entries,
      records.map((r, i) => diamondUpserted(r, Number(afters[i].revision), now)),
    );
    return records;
  }
}

/**
 * A new diamond's insert (registration, a polished child, a rough cut): its record, its first custody entry
 * (`registered`, linked to `prev`: null for a root, the parent's entry for a child) and its event, in one
 * statement. Sets the row's custody_head; answers the record and the entry's hash.
 */
export async function insertNewDiamond(
  diamonds: DiamondsRepository,
  sql: Sql,
  row: DiamondRow,
  actor: string,
  prev: string | null,
  now: Date,
  links?: string[],
): Promise<CommittedChange> {
  const { change, write } = newDiamondWrite(row, actor, prev, now, links);
  await diamonds.insertWithOutbox(sql, write.row, write.events, write.entry);
  return change;
}

/**
 * What `insertNewDiamond` writes, without writing it (the registration hot path hands it to RegistrationWriter):
 * the record, the first custody entry and the `diamond.upserted` event of `row`, whose custody_head it sets.
 */
export function newDiamondWrite(
  row: DiamondRow,
  actor: string,
  prev: string | null,
  now: Date,
  links?: string[],
): { change: CommittedChange; write: NewDiamondWrite } {
  const record = toDiamondV1(row, null);
  const entry = custodyEntryOf(record, { action: 'registered', actor, ...(links ? { links } : {}) }, prev);
  row.custody_head = entry.entry_hash;
  const event = diamondUpserted(record, 1, now);
  return { change: { record, entryHash: entry.entry_hash, recordJson: event.dataText }, write: { row, events: [event], entry } };
}
