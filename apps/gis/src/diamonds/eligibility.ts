import { GisIneligibilityReason, GisStatus, IneligibleResponse, ShapeGroup, isSupportedShapeGroup, shapeGroupOf } from '@dtp/domain';
import type { ScanReportEntity } from '../scan-reports/scan-report.entity';
import type { ScanReportValues } from '../scan-reports/scan-report.parser';
import type { GisDiamondEntity } from './gis-diamond.entity';

/** The members of GIS's diamond view the rules read. */
export type DiamondFacts = Pick<GisDiamondEntity, 'diamond_id' | 'deleted' | 'lifecycle_state' | 'carats' | 'shape' | 'unlock_status' | 'scan_report_hash'>;

/** What the scan report lookup found (see ScanReportsService). */
export type ReportFacts = { state: 'none' } | { state: 'unavailable'; reason: string } | { state: 'known'; report: ScanReportEntity };

export type Assessment =
  | { kind: 'deleted' }
  /** 409 `{reason, detail}`; gisStatus is what the diamond record shows (null: not assessed). */
  | { kind: 'ineligible'; reason: GisIneligibilityReason; detail: IneligibleResponse['detail']; gisStatus: GisStatus | null }
  /** The scan report is attached but the blob store does not hold it (yet): 503, nothing decided. */
  | { kind: 'unavailable'; reason: string }
  /**
   * Verify may proceed. Validate may too unless the declared shape's group is `Other` (gisStatus
   * `shape_not_supported`, answered 409 `shape_not_supported` by validate only).
   */
  | {
      kind: 'eligible';
      carats: string;
      shape: string;
      shapeGroup: ShapeGroup;
      scanReportHash: string;
      values: ScanReportValues;
      gisStatus: 'eligible' | 'shape_not_supported';
    };

/** An assessment that lets verify (and, unless its gisStatus is `shape_not_supported`, validate) proceed. */
export type EligibleAssessment = Extract<Assessment, { kind: 'eligible' }>;

/**
 * Lab eligibility of a diamond (spec "Errors", DESIGN.md "GIS"), checked in this order:
 * deleted -> not polished (lifecycle_state other than `polished`, or no declared carats/shape) -> no scan
 * report -> report not supported / required element missing -> value not a decimal -> shape group.
 *
 * gis_status: null while not polished; `missing_data` when a polished diamond lacks declared carats or shape
 * or its report lacks a required element; `missing_report`; `invalid_report` (another file type/root,
 * hostile or malformed XML); `not_processable` (a value that is not a decimal); `shape_not_supported`
 * (declared shape in group Other); else `eligible`.
 */
export function assessEligibility(diamond: DiamondFacts, report: ReportFacts): Assessment {
  if (diamond.deleted) return { kind: 'deleted' };
  if (diamond.lifecycle_state !== 'polished') {
    return {
      kind: 'ineligible',
      reason: 'diamond_is_not_polished',
      detail: `the diamond's lifecycle_state is ${diamond.lifecycle_state === null ? 'unknown' : `"${diamond.lifecycle_state}"`}, not "polished"`,
      gisStatus: null,
    };
  }
  if (diamond.carats === null || diamond.shape === null) {
    const missing = [diamond.carats === null ? 'carats' : null, diamond.shape === null ? 'shape' : null].filter(Boolean).join(' and ');
    return { kind: 'ineligible', reason: 'diamond_is_not_polished', detail: `the diamond has no declared polished ${missing}`, gisStatus: 'missing_data' };
  }
  if (diamond.scan_report_hash === null || report.state === 'none') {
    return { kind: 'ineligible', reason: 'diamond_has_no_scan_report', detail: 'no scan report is attached to the diamond', gisStatus: 'missing_report' };
  }
  if (report.state === 'unavailable') return { kind: 'unavailable', reason: report.reason };
  const r = report.report;
  switch (r.outcome) {
    case 'not_supported':
    case 'missing_data':
      return {
        kind: 'ineligible',
        reason: 'scan_report_not_supported',
        detail: { generic_error: (r.detail as { generic_error?: string } | null)?.generic_error ?? 'the scan report is not supported' },
        gisStatus: r.outcome === 'missing_data' ? 'missing_data' : 'invalid_report',
      };
    case 'parse_error':
      return { kind: 'ineligible', reason: 'scan_report_parse_error', detail: r.detail as IneligibleResponse['detail'], gisStatus: 'not_processable' };
    case 'parsed': {
      if (!r.extracted) throw new Error(`scan report ${r.hash} is parsed but holds no values`);
      const group = shapeGroupOf(diamond.shape);
      return {
        kind: 'eligible',
        carats: diamond.carats,
        shape: diamond.shape,
        shapeGroup: group,
        scanReportHash: r.hash,
        values: r.extracted,
        gisStatus: isSupportedShapeGroup(group) ? 'eligible' : 'shape_not_supported',
      };
    }
  }
}

/** The gis_status an assessment implies; undefined when nothing can be decided (deleted, unavailable). */
export function gisStatusOf(a: Assessment): { status: GisStatus | null; reason: GisIneligibilityReason | null } | undefined {
  switch (a.kind) {
    case 'deleted':
    case 'unavailable':
      return undefined;
    case 'ineligible':
      return { status: a.gisStatus, reason: a.gisStatus === null ? null : a.reason };
    case 'eligible':
      return { status: a.gisStatus, reason: a.gisStatus === 'shape_not_supported' ? 'shape_not_supported' : null };
  }
}
