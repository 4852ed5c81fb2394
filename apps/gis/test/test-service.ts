import type { Caller } from '@dtp/auth-guard';
import { DomainError, GisIneligibilityReason, GisStatus } from '@dtp/domain';
import type { Tx, UnitOfWork } from '@dtp/database';
import type { EntityManager } from 'typeorm';
import { GisConfig } from '../src/config';
import type { DiamondsRepository } from '../src/diamonds/diamonds.repository';
import { EligibilityService } from '../src/diamonds/eligibility.service';
import type { GisDiamondEntity } from '../src/diamonds/gis-diamond.entity';
import type { ScanReportEntity } from '../src/scan-reports/scan-report.entity';
import type { ScanReportLookup, ScanReportsService } from '../src/scan-reports/scan-reports.service';
import type { ValidationRequestEntity } from '../src/validation/validation-request.entity';
import type { ValidationRepository } from '../src/validation/validation.repository';
import { ValidationService } from '../src/validation/validation.service';
import type { VerifyRepository } from '../src/verify/verify.repository';

/*
 * The service test tier of gis (after immich's newTestService): ValidationService and the EligibilityService it
 * asks, built on in-memory repositories, so the validate rules (refusals, their reasons, the queued job) are
 * tested in milliseconds with no database. The integration tier (test/*.spec.ts) proves the SQL and the worker.
 */

/** The statements sent through a transaction's manager (writeOutbox): recorded, answered with nothing. */
export interface Statement {
  text: string;
  params: unknown[];
}

/** A unit of work whose transactions only record what is sent through their manager. */
export class FakeUnitOfWork {
  readonly statements: Statement[] = [];
  get manager(): EntityManager {
    return { query: async (text: string, params: unknown[] = []) => void this.statements.push({ text, params }) } as unknown as EntityManager;
  }
  async run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return fn({ manager: this.manager, afterCommit: (hook: () => void) => hook() } as unknown as Tx);
  }
  /** Outbox rows written (topic, key, event type). */
  outboxWrites(): [unknown, unknown, unknown][] {
    return this.statements.filter((s) => /^INSERT INTO outbox/.test(s.text)).map((s) => [s.params[0], s.params[1], s.params[2]]);
  }
}

/** gis_diamonds in memory. */
export class InMemoryGisDiamonds {
  readonly rows = new Map<string, GisDiamondEntity>();
  put(row: Partial<GisDiamondEntity> & { diamond_id: string }): GisDiamondEntity {
    const full: GisDiamondEntity = {
      revision: '1',
      version_id: 'v1',
      lifecycle_state: 'polished',
      current_stage: 'polished',
      unlock_status: 'locked',
      carats: '1.02',
      shape: 'Round',
      holder_participant_id: 'holder-1',
      scan_report_hash: null,
      deleted: false,
      deleted_at: null,
      gis_status: null,
      gis_reason: null,
      eligibility_revision: '0',
      grading_revision: '0',
      updated_at: new Date(0),
      ...row,
    };
    this.rows.set(full.diamond_id, full);
    return full;
  }
  async find(diamondId: string): Promise<GisDiamondEntity | null> {
    const row = this.rows.get(diamondId);
    return row ? { ...row } : null;
  }
  async lock(_m: EntityManager, diamondId: string): Promise<GisDiamondEntity | null> {
    return this.find(diamondId);
  }
  async setEligibility(_m: EntityManager, diamondId: string, status: GisStatus | null, reason: GisIneligibilityReason | null): Promise<number> {
    const row = this.rows.get(diamondId)!;
    row.gis_status = status;
    row.gis_reason = reason;
    row.eligibility_revision = String(Number(row.eligibility_revision) + 1);
    return Number(row.eligibility_revision);
  }
}

/** Parsed scan reports by hash; a hash with none is one the blob store does not hold yet. */
export class FakeScanReports {
  readonly reports = new Map<string, ScanReportEntity>();
  put(report: Partial<ScanReportEntity> & { hash: string }): void {
    this.reports.set(report.hash, { outcome: 'parsed', extracted: null, detail: null, size_bytes: '100', parsed_at: new Date(0), ...report });
  }
  async lookup(hash: string): Promise<ScanReportLookup> {
    const report = this.reports.get(hash);
    return report ? { state: 'known', report } : { state: 'unavailable', reason: `blob ${hash} not found` };
  }
}

/** verify_attempts in memory: which lab verified which diamond successfully. */
export class InMemoryVerifications {
  readonly successes = new Set<string>();
  succeeded(diamondId: string, lab: string): void {
    this.successes.add(`${diamondId}|${lab}`);
  }
  async hasSuccess(diamondId: string, lab: string): Promise<boolean> {
    return this.successes.has(`${diamondId}|${lab}`);
  }
}

/** validation_requests in memory. */
export class InMemoryValidationRequests {
  readonly rows: ValidationRequestEntity[] = [];
  async insert(job: Pick<ValidationRequestEntity, 'request_id' | 'diamond_id' | 'lab_participant_id' | 'request' | 'scan_report_hash'>): Promise<void> {
    this.rows.push({
      ...job,
      status: 'Pending',
      verification_description: null,
      verification_error: null,
      parameters: null,
      requested_at: new Date(),
      answered_at: null,
      answered_by: null,
      claimed_by: null,
      claimed_at: null,
      attempts: 0,
    });
  }
  async findOwn(diamondId: string, requestId: string, lab: string): Promise<ValidationRequestEntity | null> {
    return this.rows.find((r) => r.request_id === requestId && r.diamond_id === diamondId && r.lab_participant_id === lab) ?? null;
  }
  async answered(diamondId: string, lab: string): Promise<ValidationRequestEntity[]> {
    return this.rows
      .filter((r) => r.diamond_id === diamondId && r.lab_participant_id === lab && r.status !== 'Pending')
      .sort((a, b) => b.requested_at.getTime() - a.requested_at.getTime());
  }
}

/** The refusal a promise rejects with: its kind and body (the answer's status and exact JSON). */
export async function refusal(p: Promise<unknown>): Promise<{ kind: string; body: Record<string, unknown> }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return { kind: err.kind, body: err.body as Record<string, unknown> };
}

export const lab = (participantId = 'lab-1'): Caller => ({
  participantId,
  role: 'grading_lab',
  clientId: `client-${participantId}`,
  name: `Lab ${participantId}`,
});

/** ValidationService (and the real EligibilityService under it) on in-memory repositories. */
export function newTestService() {
  const uow = new FakeUnitOfWork();
  const diamonds = new InMemoryGisDiamonds();
  const scanReports = new FakeScanReports();
  const verifications = new InMemoryVerifications();
  const requests = new InMemoryValidationRequests();
  const config = Object.assign(new GisConfig(), { PUBLIC_BASE_URL: 'https://gis.example/', VALIDATION_EXPIRY_SECONDS: 3600 });
  const asDiamonds = diamonds as unknown as DiamondsRepository;
  const eligibility = new EligibilityService(uow as unknown as UnitOfWork, asDiamonds, scanReports as unknown as ScanReportsService);
  const validation = new ValidationService(
    eligibility,
    asDiamonds,
    verifications as unknown as VerifyRepository,
    requests as unknown as ValidationRepository,
    config,
  );
  return { uow, diamonds, scanReports, verifications, requests, config, eligibility, validation };
}
