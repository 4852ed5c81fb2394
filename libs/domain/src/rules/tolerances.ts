import { DecimalInput, toDecimal } from './decimal';

/** Validation tolerances (plus or minus) from the spec's "Limits", as decimal strings. */
export const TOLERANCES = Object.freeze({
  estimated_weight_crt: '0.02',
  girdle_avg_mm: '0.5',
  table_avg_mm: '0.143',
  total_depth_mm: '0.073',
  crown_angle_avg_deg: '1.1',
  pavilion_angle_avg_deg: '0.27',
} as const);
export type ToleranceParameter = keyof typeof TOLERANCES;

/** Verify's carat tolerance: compared as 0.02, reported as the observed text "0.020". */
export const VERIFY_CARAT_TOLERANCE = '0.02';
export const VERIFY_CARAT_TOLERANCE_REPORTED = '0.020';

/**
 * True when |a - b| <= tolerance, in decimal arithmetic (so 1.00 vs 1.02 with tolerance 0.02
 * matches, where binary floating point says 0.020000000000000018 > 0.02).
 */
export function withinTolerance(a: DecimalInput, b: DecimalInput, tolerance: DecimalInput): boolean {
  return toDecimal(a).minus(toDecimal(b)).abs().lte(toDecimal(tolerance));
}
