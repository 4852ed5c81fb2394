import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Caller } from '@dtp/auth-guard';
import {
  ConflictError,
  GRADING_DECIMAL_FIELDS,
  GradedMeasurementsResponse,
  GradingData,
  GradingDataView,
  GradingSubmittedData,
  isDiamondId,
  NotFoundError,
  toDecimalText,
  UserGradedMeasurementDto,
} from '@dtp/domain';
import { Sql, Tx, UnitOfWork } from '@dtp/database';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { toGradingDataView } from '../diamonds/diamond.mapper';
import { DiamondRow } from '../diamonds/diamond.entity';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { GradedMeasurementRow } from '../diamonds/graded-measurement.entity';
import { GradedMeasurementsRepository } from '../diamonds/graded-measurements.repository';

const DECIMALS: ReadonlySet<string> = new Set(GRADING_DECIMAL_FIELDS);

/** Request members -> stored GradingData: decimals as decimal text, members not supplied omitted. */
export function toGradingData(input: object): GradingData {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    out[key] = DECIMALS.has(key) && value !== null ? toDecimalText(value as number | string) : value;
  }
  return out as GradingData;
}

export type GisGradingOutcome = 'recorded' | 'duplicate' | 'diamond_not_found';

function gradingNotFound(): NotFoundError {
  return new NotFoundError('graded measurement not found');
}

/**
 * Graded measurements of a diamond (spec "Grading data management"): the holder lists them, adds its own
 * (`source: user`), and selects the single active one, which the diamond record shows in `grading`.
 */
@Injectable()
export class GradedMeasurementsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly graded: GradedMeasurementsRepository,
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
  ) {}

  async list(caller: Caller, diamondId: string): Promise<GradedMeasurementsResponse> {
    await this.changes.loadHeld(this.uow.sql, diamondId, caller, { action: 'list its graded measurements', readOnly: true });
    const rows = await this.graded.list(null, diamondId);
    return { results: rows.map(toGradingDataView) };
  }

  /** A record the holder adds itself: inactive and selectable. Not a change of the diamond record. */
  async addUserRecord(caller: Caller, diamondId: string, dto: UserGradedMeasurementDto): Promise<GradingDataView> {
    return this.uow.run(async (sql) => {
      await this.changes.loadHeld(sql, diamondId, caller, { action: 'add graded measurements to it', lock: true });
      const row = await this.graded.insert(sql, {
        id: randomUUID(),
        diamond_id: diamondId,
        source: 'user',
        data: toGradingData(dto),
        created_by: caller.participantId,
      });
      return toGradingDataView(row!);
    });
  }

  /**
   * Makes one record active; the previous active one becomes inactive in the same transaction. The diamond row
   * is locked first (serialising selects of one diamond) and the partial unique index guarantees at most one
   * active record whatever happens. A new diamond version (and event) shows the new `grading`.
   */
  async select(caller: Caller, diamondId: string, gradingId: string): Promise<GradingDataView> {
    return this.uow.run(async (sql) => {
      const diamond = await this.changes.loadHeld(sql, diamondId, caller, { action: 'select its graded measurements', lock: true });
      const gm = await this.findOr404(sql, diamond, gradingId);
      if (gm.is_active) return toGradingDataView(gm);
      if (!gm.is_selectable) {
        throw new ConflictError(`graded measurement ${gradingId} is not selectable`, 'not_selectable');
      }
      await this.graded.deactivateAll(sql, diamondId);
      const active = await this.graded.setActive(sql, diamondId, gradingId, true);
      await this.changes.commit(sql, diamond, {}, { action: 'grading_selected', actor: caller.participantId });
      return toGradingDataView(active);
    });
  }

  /** Makes the record inactive, so the diamond shows no graded measurement. Idempotent. */
  async deselect(caller: Caller, diamondId: string, gradingId: string): Promise<GradingDataView> {
    return this.uow.run(async (sql) => {
      const diamond = await this.changes.loadHeld(sql, diamondId, caller, { action: 'deselect its graded measurements', lock: true });
      const gm = await this.findOr404(sql, diamond, gradingId);
      if (!gm.is_active) return toGradingDataView(gm);
      const inactive = await this.graded.setActive(sql, diamondId, gradingId, false);
      await this.changes.commit(sql, diamond, {}, { action: 'grading_deselected', actor: caller.participantId });
      return toGradingDataView(inactive);
    });
  }

  /**
   * A lab's grading from GIS (`grading.submitted` on gis.gradings.v1) becomes a selectable `source: gis` record
   * whose id is the event's grading_id, so a redelivered event inserts nothing. Not a change of the diamond
   * record until the holder selects it. For the consumer that wires gis.gradings.v1.
   */
  /**
   * Stores a lab's grading (from gis.gradings.v1) as an inactive, selectable `source: gis` record, once per
   * grading_id. Runs in the caller's transaction (the consumer's, so progress and effect commit together).
   */
  async recordGisGrading(sql: Sql, event: GradingSubmittedData): Promise<GisGradingOutcome> {
    if (!isDiamondId(event.diamond_id)) return 'diamond_not_found';
    if (!(await this.diamonds.existsForShare(sql, event.diamond_id))) return 'diamond_not_found';
    const inserted = await this.graded.insert(
      sql,
      { id: event.grading_id, diamond_id: event.diamond_id, source: 'gis', data: toGradingData(event.data), created_by: event.submitted_by ?? null },
      { ifAbsent: true },
    );
    return inserted ? 'recorded' : 'duplicate';
  }

  private async findOr404(sql: Tx, diamond: DiamondRow, gradingId: string): Promise<GradedMeasurementRow> {
    const gm = await this.graded.find(sql, diamond.diamond_id, gradingId);
    if (!gm) throw gradingNotFound();
    return gm;
  }
}
