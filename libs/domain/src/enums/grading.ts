import { enumObject } from './enum-helpers';

/** Graded measurements and the grading integration service (GIS). */

export const GRADED_MEASUREMENT_SOURCE_VALUES = ['gis', 'user'] as const;
export const GradedMeasurementSource = enumObject(GRADED_MEASUREMENT_SOURCE_VALUES);
export type GradedMeasurementSource = (typeof GRADED_MEASUREMENT_SOURCE_VALUES)[number];

export const VALIDATION_LEVEL_VALUES = ['validation', 'verification'] as const;
export const ValidationLevel = enumObject(VALIDATION_LEVEL_VALUES);
export type ValidationLevel = (typeof VALIDATION_LEVEL_VALUES)[number];

/** Per-parameter result of a validation (DESIGN.md "GIS"). */
export const VALIDATION_RESULT_VALUES = ['matched', 'out_of_tolerance', 'missing', 'zero'] as const;
export const ValidationResult = enumObject(VALIDATION_RESULT_VALUES);
export type ValidationResult = (typeof VALIDATION_RESULT_VALUES)[number];

/**
 * Body field `reason` of an ineligible verify/validate (spec "Errors"). `shape_not_supported` is the
 * code DESIGN.md fixes for "a diamond without a supported shape group" (the spec does not name it).
 */
export const GIS_INELIGIBILITY_REASON_VALUES = [
  'diamond_has_been_deleted',
  'diamond_is_not_polished',
  'diamond_has_no_scan_report',
  'scan_report_not_supported',
  'scan_report_parse_error',
  'shape_not_supported',
] as const;
export const GisIneligibilityReason = enumObject(GIS_INELIGIBILITY_REASON_VALUES);
export type GisIneligibilityReason = (typeof GIS_INELIGIBILITY_REASON_VALUES)[number];

/** `error_type` in a scan_report_parse_error detail entry (the one observed value). */
export const SCAN_REPORT_ERROR_TYPE_VALUES = ['value_not_a_decimal'] as const;
export const ScanReportErrorType = enumObject(SCAN_REPORT_ERROR_TYPE_VALUES);
export type ScanReportErrorType = (typeof SCAN_REPORT_ERROR_TYPE_VALUES)[number];
