import { assessEligibility, DiamondFacts, gisStatusOf, ReportFacts } from './eligibility';
import type { ScanReportEntity } from '../scan-reports/scan-report.entity';

const diamond = (over: Partial<DiamondFacts> = {}): DiamondFacts => ({
  diamond_id: 'd'.repeat(26),
  deleted: false,
  lifecycle_state: 'polished',
  carats: '1.02',
  shape: 'Round',
  unlock_status: 'locked',
  scan_report_hash: 'a'.repeat(64),
  ...over,
});
const known = (over: Partial<ScanReportEntity>): ReportFacts => ({
  state: 'known',
  report: { hash: 'a'.repeat(64), outcome: 'parsed', extracted: null, detail: null, size_bytes: '10', parsed_at: new Date(), ...over },
});
const VALUES = {
  shape: 'Round',
  estimated_weight_crt: '1',
  girdle_avg_mm: '1',
  table_avg_mm: '1',
  total_depth_mm: '1',
  crown_angle_avg_deg: null,
  pavilion_angle_avg_deg: null,
};
const parsed = known({ outcome: 'parsed', extracted: VALUES });

describe('assessEligibility and gis_status', () => {
  it('deleted wins over everything and implies no gis_status change', () => {
    const a = assessEligibility(diamond({ deleted: true, lifecycle_state: 'rough' }), { state: 'none' });
    expect(a).toEqual({ kind: 'deleted' });
    expect(gisStatusOf(a)).toBeUndefined();
  });

  it('a rough / split / destroyed diamond is not polished, gis_status null', () => {
    for (const state of ['rough', 'split', 'destroyed']) {
      const a = assessEligibility(diamond({ lifecycle_state: state }), parsed);
      expect(a).toMatchObject({ kind: 'ineligible', reason: 'diamond_is_not_polished', gisStatus: null });
      expect(gisStatusOf(a)).toEqual({ status: null, reason: null });
    }
  });

  it('a polished diamond without declared carats is missing_data', () => {
    expect(assessEligibility(diamond({ carats: null }), parsed)).toMatchObject({
      reason: 'diamond_is_not_polished',
      gisStatus: 'missing_data',
      detail: 'the diamond has no declared polished carats',
    });
  });

  it('no scan report: diamond_has_no_scan_report / missing_report', () => {
    const a = assessEligibility(diamond({ scan_report_hash: null }), { state: 'none' });
    expect(a).toMatchObject({ kind: 'ineligible', reason: 'diamond_has_no_scan_report', gisStatus: 'missing_report' });
    expect(gisStatusOf(a)).toEqual({ status: 'missing_report', reason: 'diamond_has_no_scan_report' });
  });

  it('an unreadable blob decides nothing', () => {
    const a = assessEligibility(diamond(), { state: 'unavailable', reason: 'not in store' });
    expect(a).toEqual({ kind: 'unavailable', reason: 'not in store' });
    expect(gisStatusOf(a)).toBeUndefined();
  });

  it('not supported -> invalid_report; missing element -> missing_data; both answered scan_report_not_supported', () => {
    expect(assessEligibility(diamond(), known({ outcome: 'not_supported', detail: { generic_error: 'x' } }))).toMatchObject({
      reason: 'scan_report_not_supported',
      detail: { generic_error: 'x' },
      gisStatus: 'invalid_report',
    });
    expect(assessEligibility(diamond(), known({ outcome: 'missing_data', detail: { generic_error: 'y' } }))).toMatchObject({
      reason: 'scan_report_not_supported',
      detail: { generic_error: 'y' },
      gisStatus: 'missing_data',
    });
  });

  it('a value that is not a decimal -> scan_report_parse_error with the detail / not_processable', () => {
    const detail = { girdle_avg_mm: [{ value: 'x', xpath: '/ScanReport/Measurements/GirdleAverage', error_type: 'value_not_a_decimal' }] };
    expect(assessEligibility(diamond(), known({ outcome: 'parse_error', detail: detail as never }))).toMatchObject({
      reason: 'scan_report_parse_error',
      detail,
      gisStatus: 'not_processable',
    });
  });

  it('eligible, or shape_not_supported when the declared shape falls in group Other', () => {
    expect(assessEligibility(diamond(), parsed)).toMatchObject({ kind: 'eligible', shapeGroup: 'Round', gisStatus: 'eligible', carats: '1.02' });
    const other = assessEligibility(diamond({ shape: 'Trilliant' }), parsed);
    expect(other).toMatchObject({ kind: 'eligible', shapeGroup: 'Other', gisStatus: 'shape_not_supported' });
    expect(gisStatusOf(other)).toEqual({ status: 'shape_not_supported', reason: 'shape_not_supported' });
  });
});
