import { VALIDATE_JSON_EXAMPLE } from '@dtp/domain';
import { compareValidation, ValidationInput } from './validation-compare';
import type { ScanReportValues } from '../scan-reports/scan-report.parser';

const REPORT: ScanReportValues = {
  shape: 'Round',
  estimated_weight_crt: '1.02',
  girdle_avg_mm: '7.55',
  table_avg_mm: '3.71',
  total_depth_mm: '4.2',
  crown_angle_avg_deg: '34.5',
  pavilion_angle_avg_deg: '40.8',
};
const EXACT: ValidationInput = VALIDATE_JSON_EXAMPLE;

describe('compareValidation', () => {
  it('answers Verified with every parameter matched, difference 0 and the tolerance as text', () => {
    const r = compareValidation(EXACT, REPORT);
    expect(r.status).toBe('Verified');
    expect(r.parameters.estimated_weight_crt).toEqual({
      validation_result: 'matched',
      platform_value: '1.02',
      lab_value: '1.02',
      difference: '0',
      tolerance: '0.02',
    });
    expect(r.parameters.shape).toEqual({ validation_result: 'matched', platform_value: 'Round', lab_value: 'Round' });
    expect(Object.keys(r.parameters).sort()).toEqual([
      'crown_angle_avg_deg',
      'estimated_weight_crt',
      'girdle_avg_mm',
      'pavilion_angle_avg_deg',
      'shape',
      'table_avg_mm',
      'total_depth_mm',
    ]);
  });

  // [parameter, request field, lab value at the bound where binary floating point says |a-b| > tol, inside, outside]
  const cases: [keyof ScanReportValues, keyof ValidationInput, number, number, number, string][] = [
    ['estimated_weight_crt', 'estimated_weight_crt', 1.0, 1.001, 0.999, '0.02'],
    ['girdle_avg_mm', 'girdle_avg_mm', 8.05, 8.049, 8.051, '0.5'],
    ['table_avg_mm', 'table_avg_mm', 3.853, 3.852, 3.854, '0.143'],
    ['total_depth_mm', 'total_depth_mm', 4.127, 4.128, 4.126, '0.073'],
    ['crown_angle_avg_deg', 'crown_angle_deg', 35.6, 35.599, 35.601, '1.1'],
    ['pavilion_angle_avg_deg', 'pavillion_angle_deg', 41.07, 41.069, 41.071, '0.27'],
  ];

  it.each(cases)('%s: exactly at the tolerance matches (binary floating point would say it does not)', (param, field, atBound, _in, _out, tol) => {
    const platform = Number(REPORT[param]);
    expect(Math.abs(atBound - platform)).toBeGreaterThan(Number(tol)); // the float trap is real
    const r = compareValidation({ ...EXACT, [field]: atBound }, REPORT);
    expect(r.parameters[param as keyof typeof r.parameters]).toMatchObject({ validation_result: 'matched', difference: tol, tolerance: tol });
    expect(r.status).toBe('Verified');
  });

  it.each(cases)('%s: just inside the tolerance matches', (param, field, _at, inside) => {
    const r = compareValidation({ ...EXACT, [field]: inside }, REPORT);
    expect(r.parameters[param as keyof typeof r.parameters].validation_result).toBe('matched');
    expect(r.status).toBe('Verified');
  });

  it.each(cases)('%s: just outside the tolerance is out_of_tolerance', (param, field, _at, _in, outside, tol) => {
    const r = compareValidation({ ...EXACT, [field]: outside }, REPORT);
    const result = r.parameters[param as keyof typeof r.parameters] as { validation_result: string; difference: string };
    expect(result.validation_result).toBe('out_of_tolerance');
    expect(result.difference).toBe(String(Number(tol) + 0.001));
    const optional = param === 'crown_angle_avg_deg' || param === 'pavilion_angle_avg_deg';
    expect(r.status).toBe(optional ? 'Verified' : 'Unverifiable');
  });

  it('difference is |lab - platform| in decimal text, lab value as sent, platform value as the report writes it', () => {
    const r = compareValidation({ ...EXACT, table_avg_mm: 3.6 }, { ...REPORT, table_avg_mm: '3.710' });
    expect(r.parameters.table_avg_mm).toEqual({
      validation_result: 'matched',
      platform_value: '3.710',
      lab_value: '3.6',
      difference: '0.11',
      tolerance: '0.143',
    });
  });

  it('optional angles missing from the request or the report are `missing` and do not change the status', () => {
    const r = compareValidation({ ...EXACT, crown_angle_deg: undefined, pavillion_angle_deg: null }, REPORT);
    expect(r.status).toBe('Verified');
    expect(r.parameters.crown_angle_avg_deg).toEqual({
      validation_result: 'missing',
      platform_value: '34.5',
      lab_value: null,
      difference: null,
      tolerance: '1.1',
    });
    expect(r.parameters.pavilion_angle_avg_deg.validation_result).toBe('missing');
    const noReportAngles = compareValidation(EXACT, { ...REPORT, crown_angle_avg_deg: null, pavilion_angle_avg_deg: null });
    expect(noReportAngles.parameters.crown_angle_avg_deg).toMatchObject({ validation_result: 'missing', platform_value: null, lab_value: '34.5' });
    expect(noReportAngles.status).toBe('Verified');
  });

  it('zero angles (either side) are `zero` and do not change the status', () => {
    const r = compareValidation({ ...EXACT, crown_angle_deg: 0 }, { ...REPORT, pavilion_angle_avg_deg: '0.0' });
    expect(r.parameters.crown_angle_avg_deg.validation_result).toBe('zero');
    expect(r.parameters.pavilion_angle_avg_deg.validation_result).toBe('zero');
    expect(r.status).toBe('Verified');
    expect(r.description).toMatch(/not counted: crown_angle_avg_deg zero, pavilion_angle_avg_deg zero/);
  });

  it('a different shape group is Unverifiable; shapes of one group match (Square Emerald ~ Emerald)', () => {
    const r = compareValidation({ ...EXACT, shape_group: 'Oval' }, REPORT);
    expect(r.status).toBe('Unverifiable');
    expect(r.parameters.shape).toEqual({ validation_result: 'out_of_tolerance', platform_value: 'Round', lab_value: 'Oval' });
    expect(r.description).toBe('not within tolerance: shape');
    const same = compareValidation({ ...EXACT, shape_group: 'Emerald' }, { ...REPORT, shape: 'Square Emerald' });
    expect(same.parameters.shape).toEqual({ validation_result: 'matched', platform_value: 'Emerald', lab_value: 'Emerald' });
  });

  it('lists every failing required parameter in the description', () => {
    const r = compareValidation({ ...EXACT, girdle_avg_mm: 1, total_depth_mm: 9 }, REPORT);
    expect(r.status).toBe('Unverifiable');
    expect(r.description).toBe('not within tolerance: girdle_avg_mm, total_depth_mm');
  });
});
