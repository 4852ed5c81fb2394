import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, QueryDeepPartialEntity, Repository } from 'typeorm';
import { DiamondV1, GisIneligibilityReason, GisStatus } from '@dtp/domain';
import { GisDiamondEntity } from './gis-diamond.entity';

/** What GIS keeps of an upserted DiamondV1 record (revision: the event's). */
export type DiamondViewValues = Pick<
  GisDiamondEntity,
  'diamond_id' | 'version_id' | 'lifecycle_state' | 'current_stage' | 'unlock_status' | 'carats' | 'shape' | 'holder_participant_id' | 'scan_report_hash'
> & { revision: number };

/** gis_diamonds: GIS's own view of diamonds. The only code that queries the table. */
@Injectable()
export class DiamondsRepository {
  constructor(@InjectRepository(GisDiamondEntity) private readonly repo: Repository<GisDiamondEntity>) {}

  /** The table's repository, inside the caller's transaction when a manager is given. */
  private on(manager?: EntityManager): Repository<GisDiamondEntity> {
    return manager ? manager.getRepository(GisDiamondEntity) : this.repo;
  }

  async find(diamondId: string, manager?: EntityManager): Promise<GisDiamondEntity | null> {
    return this.on(manager).findOneBy({ diamond_id: diamondId });
  }

  /** The row, locked until the transaction ends (eligibility and grading revisions are counted under it). */
  async lock(manager: EntityManager, diamondId: string): Promise<GisDiamondEntity | null> {
    return this.on(manager).findOne({ where: { diamond_id: diamondId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Inserts or refreshes the view of a diamond; a deleted diamond stays deleted. */
  async upsert(manager: EntityManager, v: DiamondViewValues): Promise<void> {
    // Raw SQL: an upsert whose update is guarded (never revives a deleted row), which TypeORM's upsert cannot express.
    await manager.query(
      `INSERT INTO gis_diamonds (diamond_id, revision, version_id, lifecycle_state, current_stage, unlock_status, carats, shape,
                                 holder_participant_id, scan_report_hash, deleted)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false)
       ON CONFLICT (diamond_id) DO UPDATE SET
         revision = EXCLUDED.revision, version_id = EXCLUDED.version_id, lifecycle_state = EXCLUDED.lifecycle_state,
         current_stage = EXCLUDED.current_stage, unlock_status = EXCLUDED.unlock_status, carats = EXCLUDED.carats,
         shape = EXCLUDED.shape, holder_participant_id = EXCLUDED.holder_participant_id,
         scan_report_hash = EXCLUDED.scan_report_hash, updated_at = clock_timestamp()
       WHERE NOT gis_diamonds.deleted`,
      [
        v.diamond_id,
        v.revision,
        v.version_id,
        v.lifecycle_state,
        v.current_stage,
        v.unlock_status,
        v.carats,
        v.shape,
        v.holder_participant_id,
        v.scan_report_hash,
      ],
    );
  }

  /** Marks a diamond deleted (kept, so verify/validate answer 410), creating the row when GIS never saw it. */
  async markDeleted(manager: EntityManager, diamondId: string, revision: number): Promise<void> {
    // Raw SQL: an upsert that keeps the first deleted_at (COALESCE with the stored row), beyond TypeORM's upsert.
    await manager.query(
      `INSERT INTO gis_diamonds (diamond_id, revision, deleted, deleted_at) VALUES ($1, $2, true, clock_timestamp())
       ON CONFLICT (diamond_id) DO UPDATE SET revision = EXCLUDED.revision, deleted = true,
         deleted_at = COALESCE(gis_diamonds.deleted_at, EXCLUDED.deleted_at), updated_at = clock_timestamp()`,
      [diamondId, revision],
    );
  }

  /** Stores a new gis_status and returns the eligibility event revision to publish it under. */
  async setEligibility(manager: EntityManager, diamondId: string, status: GisStatus | null, reason: GisIneligibilityReason | null): Promise<number> {
    const row = await this.updateReturning(manager, diamondId, {
      gis_status: status,
      gis_reason: reason,
      eligibility_revision: () => 'eligibility_revision + 1',
    });
    return Number(row.eligibility_revision);
  }

  /** Counts one more grading for the diamond and returns its revision (call with the row locked). */
  async nextGradingRevision(manager: EntityManager, diamondId: string): Promise<number> {
    const row = await this.updateReturning(manager, diamondId, { grading_revision: () => 'grading_revision + 1' });
    return Number(row.grading_revision);
  }

  /** One UPDATE of a diamond's row that returns the row as stored after it (counters are added to in the database). */
  private async updateReturning(manager: EntityManager, diamondId: string, set: QueryDeepPartialEntity<GisDiamondEntity>): Promise<GisDiamondEntity> {
    const result = await this.on(manager).createQueryBuilder().update().set(set).where({ diamond_id: diamondId }).returning('*').execute();
    // Property names are the column names: a returned row is the entity as it is.
    const [row] = result.raw as GisDiamondEntity[];
    if (!row) throw new Error(`diamond ${diamondId} has no row in gis_diamonds`);
    return row;
  }
}

/** The newest attached scan report of a record: latest `uploaded_at`, later position on ties. */
export function newestScanReportHash(record: DiamondV1): string | null {
  const refs = record.polished?.scan_reports;
  if (!Array.isArray(refs)) return null;
  let best: { hash: string; at: number; index: number } | null = null;
  refs.forEach((ref, index) => {
    if (!ref || typeof ref.hash !== 'string' || ref.hash === '') return;
    const parsed = typeof ref.uploaded_at === 'string' ? Date.parse(ref.uploaded_at) : NaN;
    const at = Number.isNaN(parsed) ? -Infinity : parsed;
    if (!best || at > best.at || (at === best.at && index > best.index)) best = { hash: ref.hash, at, index };
  });
  return (best as { hash: string } | null)?.hash ?? null;
}

/** The holder's participant id when the record carries one (platform may add `holder_participant_id`). */
export function holderOf(record: DiamondV1): string | null {
  const r = record as unknown as Record<string, unknown>;
  for (const key of ['holder_participant_id', 'holder_id', 'holder']) {
    const value = r[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/** Declared polished carats as text (the record carries decimal text; numbers are tolerated). */
export function declaredCarats(record: DiamondV1): string | null {
  const c = record.polished?.carats as unknown;
  if (typeof c === 'string' && /^\d+(\.\d+)?$/.test(c)) return c;
  if (typeof c === 'number' && Number.isFinite(c) && c > 0) return String(c);
  return null;
}
