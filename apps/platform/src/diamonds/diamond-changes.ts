import { Injectable } from '@nestjs/common';
import { DiamondV1, isDiamondId, newVersionId } from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { writeOutbox } from '@dtp/events';
import { Sql, Tx } from '@dtp/database';
import { GradedMeasurementsRepository } from '../graded-measurements/graded-measurements.repository';
import { toGradingDataView } from '../graded-measurements/graded-measurement.row';
import { diamondUpserted } from './diamond-events';
import { diamondInTransit, diamondNotFound, notHolder } from './diamond-errors';
import { toDiamondV1 } from './diamond.mapper';
import { DiamondRow } from './diamond.row';
import { DiamondsRepository } from './diamonds.repository';

/** Columns a change may never set through `commit` (identity and bookkeeping). */
type ChangeableColumn = Exclude<keyof DiamondRow, 'diamond_id' | 'legacy_id' | 'version_id' | 'revision' | 'system_timestamp' | 'created_at'>;
export type DiamondPatch = Partial<Pick<DiamondRow, ChangeableColumn>>;

/**
 * Loading a diamond on behalf of its holder, and committing a change to it: every change gets a new version_id,
 * revision + 1, system_timestamp now, and a `diamond.upserted` outbox row with the whole new record, all in the
 * caller's transaction.
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

  /** Applies `patch` to the (locked) row `before` as one new version, and writes its outbox event. */
  async commit(sql: Tx, before: DiamondRow, patch: DiamondPatch, now: Date = new Date()): Promise<DiamondV1> {
    const revision = Number(before.revision) + 1;
    const after: DiamondRow = { ...before, ...patch, revision, version_id: newVersionId(), system_timestamp: now };
    const columns = [...(Object.keys(patch) as (keyof DiamondRow)[]), 'revision', 'version_id', 'system_timestamp'] as const;
    await this.diamonds.update(sql, after, columns);
    const record = await this.record(sql, after);
    await writeOutbox(sql, [diamondUpserted(record, revision, now)]);
    return record;
  }

  /**
   * Applies a patch to each of many (locked) rows as one new version each, in one UPDATE and one outbox INSERT
   * (transfers of up to 1,000 diamonds). Records come back in the order of `befores`.
   */
  async commitMany(sql: Tx, befores: DiamondRow[], patch: (row: DiamondRow) => DiamondPatch, now: Date = new Date()): Promise<DiamondV1[]> {
    if (befores.length === 0) return [];
    const patches = befores.map(patch);
    const columns = [...new Set(patches.flatMap((p) => Object.keys(p) as (keyof DiamondRow)[])), 'revision', 'version_id', 'system_timestamp'] as const;
    const afters = befores.map((b, i): DiamondRow => ({ ...b, ...patches[i], revision: Number(b.revision) + 1, version_id: newVersionId(), system_timestamp: now }));
    await this.diamonds.updateMany(sql, afters, columns);
    const active = new Map((await this.graded.activeMany(sql, afters.map((a) => a.diamond_id))).map((g) => [g.diamond_id, toGradingDataView(g)]));
    const records = afters.map((a) => toDiamondV1(a, active.get(a.diamond_id) ?? null));
    await writeOutbox(sql, records.map((r, i) => diamondUpserted(r, Number(afters[i].revision), now)));
    return records;
  }
}
