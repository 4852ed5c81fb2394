import type { VerificationStatus } from '../enums/diamond-state';
import type { GisIneligibilityReason, ScanReportErrorType, ValidationResult } from '../enums/grading';

/** Verify, 200 on match. */
export interface VerifySuccess {
  status: 'success';
  is_locked: boolean;
}

/** Verify, 200 on mismatch; all values are decimal strings / shape-group names. */
export interface VerifyFailure {
  status: 'failure';
  data: {
    carat_weight: { matched: boolean; known_value: string; given_value: string; tolerance: string };
    shape_group: { matched: boolean; known_value: string; given_value: string };
  };
}

export type VerifyResponse = VerifySuccess | VerifyFailure;

/** Validate, 202. */
export interface ValidateAccepted {
  diamond_id: string;
  request_id: string;
  /** Absolute address of the poll endpoint. */
  status_url: string;
  verification_status: 'Pending';
}

/** Numeric parameters of a validation result (keys as reported, not as requested). */
export const NUMERIC_VALIDATION_PARAMETERS = [
  'crown_angle_avg_deg', 'estimated_weight_crt', 'girdle_avg_mm', 'pavilion_angle_avg_deg', 'table_avg_mm',
  'total_depth_mm',
] as const;
export type NumericValidationParameter = (typeof NUMERIC_VALIDATION_PARAMETERS)[number];
export const VALIDATION_PARAMETERS = [...NUMERIC_VALIDATION_PARAMETERS, 'shape'] as const;
export type ValidationParameterName = (typeof VALIDATION_PARAMETERS)[number];

/** platform_value = scan report, lab_value = request, difference = |lab - platform|; decimal strings. */
export interface NumericParameterResult {
  validation_result: ValidationResult;
  platform_value: string | null;
  lab_value: string | null;
  /** Null when either value is missing. */
  difference: string | null;
  tolerance: string;
}

/** `shape` compares strings (shape groups); no difference or tolerance. */
export interface ShapeParameterResult {
  validation_result: ValidationResult;
  platform_value: string | null;
  lab_value: string | null;
}

export type ValidationParameters = { [K in NumericValidationParameter]: NumericParameterResult } & {
  shape: ShapeParameterResult;
};

/** Poll `GET {gis_url}/v2/diamonds/{diamond_id}/validate/{request_id}`. */
export interface ValidationPoll {
  diamond_id: string;
  request_id: string;
  requested_at: string;
  verification_status: VerificationStatus;
  verification_description: string | null;
  verification_error: string | null;
  /** Null while Pending (and when the request errored before comparing). */
  parameters: ValidationParameters | null;
}

/** One entry of `GET {gis_url}/v2/diamonds/{diamond_id}/validate/historic`. */
export interface ValidationHistoryEntry {
  diamond_id: string;
  request_id: string;
  requested_at: string;
  verification_status: VerificationStatus;
  verification_description: string | null;
  verification_error: string | null;
  expired: boolean;
}

export interface ScanReportParseErrorEntry {
  value: string | null;
  xpath: string;
  error_type: ScanReportErrorType;
}

/** Detail of `scan_report_parse_error`: field name -> entries. */
export type ScanReportParseErrorDetail = Record<string, ScanReportParseErrorEntry[]>;

export interface ScanReportNotSupportedDetail {
  generic_error: string;
}

/** Body of an ineligible verify/validate (409; 410 for deleted with detail null). */
export interface IneligibleResponse {
  reason: GisIneligibilityReason;
  detail: ScanReportParseErrorDetail | ScanReportNotSupportedDetail | string | null;
}
