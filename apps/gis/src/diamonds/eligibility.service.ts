import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { EventTypes, Topics, makeEnvelope } from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import { DiamondDeletedError, DiamondIneligibleError, DiamondNotFoundError, ScanReportUnavailableError } from '../common/errors';
import { ScanReportsService } from '../scan-reports/scan-reports.service';
import { DiamondsRepository } from './diamonds.repository';
import { Assessment, DiamondFacts, EligibleAssessment, ReportFacts, assessEligibility, gisStatusOf } from './eligibility';
import { GisDiamondEntity } from './gis-diamond.entity';

export interface DiamondAssessment {
  diamond: GisDiamondEntity;
  assessment: Assessment;
}

export interface EligibleDiamond {
  diamond: GisDiamondEntity;
  assessment: EligibleAssessment;
}

/**
 * Decides a diamond's lab eligibility and publishes `eligibility.changed` on gis.eligibility.v1 (through the
 * outbox, in the transaction that stores the new gis_status) whenever the gis_status or its reason changes.
 */
@Injectable()
export class EligibilityService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly scanReports: ScanReportsService,
  ) {}

  async reportFacts(hash: string | null): Promise<ReportFacts> {
    if (hash === null) return { state: 'none' };
    return this.scanReports.lookup(hash);
  }

  /**
   * The current assessment of a diamond (null when GIS has never heard of it). Reads the scan report (parsing
   * it on first sight) and publishes a changed gis_status, e.g. when a report the blob store lacked earlier
   * can now be read.
   */
  async assess(diamondId: string): Promise<DiamondAssessment | null> {
    const diamond = await this.diamonds.find(diamondId);
    if (!diamond) return null;
    const report = await this.reportFacts(diamond.deleted ? null : diamond.scan_report_hash);
    const assessment = assessEligibility(diamond, report);
    const implied = gisStatusOf(assessment);
    if (implied && (implied.status !== diamond.gis_status || implied.reason !== diamond.gis_reason)) {
      await this.uow.run((tx) => this.publishIfChanged(tx.manager, diamondId, { hash: diamond.scan_report_hash, facts: report }));
    }
    return { diamond, assessment };
  }

  /**
   * The diamond and its assessment when verify may proceed (validate checks `shape_not_supported` itself);
   * otherwise throws why not: DiamondNotFoundError, DiamondDeletedError, DiamondIneligibleError `{reason, detail}`
   * or ScanReportUnavailableError (the report is attached but the file store cannot give it yet).
   */
  async requireEligible(diamondId: string): Promise<EligibleDiamond> {
    const found = await this.assess(diamondId);
    if (!found) throw new DiamondNotFoundError();
    const { diamond, assessment } = found;
    switch (assessment.kind) {
      case 'deleted':
        throw new DiamondDeletedError();
      case 'ineligible':
        throw new DiamondIneligibleError(assessment.reason, assessment.detail);
      case 'unavailable':
        throw new ScanReportUnavailableError(assessment.reason);
      case 'eligible':
        return { diamond, assessment };
    }
  }

  /**
   * Inside the caller's transaction: locks the diamond's row, recomputes its gis_status from the view and the
   * given report facts, and when it differs from the stored one stores it and writes the event to the outbox.
   */
  async publishIfChanged(manager: EntityManager, diamondId: string, known?: { hash: string | null; facts: ReportFacts }): Promise<Assessment | null> {
    const row = await this.diamonds.lock(manager, diamondId);
    if (!row) return null;
    const facts: DiamondFacts = row;
    const hash = row.deleted ? null : row.scan_report_hash;
    const report = known && known.hash === hash ? known.facts : await this.reportFacts(hash);
    const assessment = assessEligibility(facts, report);
    const implied = gisStatusOf(assessment);
    if (!implied || (implied.status === row.gis_status && implied.reason === row.gis_reason)) return assessment;
    const revision = await this.diamonds.setEligibility(manager, diamondId, implied.status, implied.reason);
    const envelope = makeEnvelope({
      event_type: EventTypes.ELIGIBILITY_CHANGED,
      data: { diamond_id: diamondId, gis_status: implied.status, reason: implied.reason },
      revision,
    });
    await writeOutbox(manager, [{ topic: Topics.GIS_ELIGIBILITY, key: diamondId, eventType: envelope.event_type, revision, payload: envelope }]);
    return assessment;
  }
}
