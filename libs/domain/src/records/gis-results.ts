import { ApiExtraModels, ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { VERIFICATION_STATUS_VALUES, VerificationStatus } from '../enums/diamond-state';
import {
  GIS_INELIGIBILITY_REASON_VALUES,
  GisIneligibilityReason,
  SCAN_REPORT_ERROR_TYPE_VALUES,
  ScanReportErrorType,
  VALIDATION_RESULT_VALUES,
  ValidationResult,
} from '../enums/grading';
import { SHAPE_GROUP_VALUES } from '../enums/shape';
import { DECIMAL_TEXT_PATTERN } from '../rules/decimal';
import { DIAMOND_ID_PATTERN, UUID_PATTERN } from '../rules/ids';

/*
 * GIS answers (spec "Grading integration", DESIGN.md "GIS"). Classes so that the OpenAPI document describes them
 * (object literals stay assignable: no private members). Decimal values are decimal text.
 */

const DIAMOND_ID = { type: 'string', pattern: DIAMOND_ID_PATTERN.source, example: '01jd3k8m5n2p7r4t6v9w1x3y5z' } as const;
const REQUEST_ID = { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, example: '7b2e4c1a-9f3d-4e6b-8a5c-2d1f0e9b8a7c' } as const;
/** Non-negative decimal text as the services write it ("1.02", "0.020"). */
const DECIMAL = { type: 'string', pattern: DECIMAL_TEXT_PATTERN.source } as const;
/** A scan report's value is its own text, which may carry a sign. */
const SIGNED_DECIMAL = { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' } as const;
const SHAPE_GROUP = { enum: SHAPE_GROUP_VALUES, enumName: 'ShapeGroup' } as const;

/** Verify, 200 on match. */
export class VerifySuccess {
  @ApiProperty({ enum: ['success'], example: 'success' })
  status!: 'success';

  @ApiProperty({ description: 'Whether the diamond is still locked (`unlock_status` of its record is `locked`).', example: true })
  is_locked!: boolean;
}

/** `data.carat_weight` of a failed verify. */
export class VerifyCaratWeightResult {
  @ApiProperty({ description: 'Whether |given - known| is within the tolerance.', example: false })
  matched!: boolean;

  @ApiProperty({ ...DECIMAL, description: "The diamond's declared polished carats.", example: '1.02' })
  known_value!: string;

  @ApiProperty({ ...DECIMAL, description: 'The `carat_weight` sent.', example: '1.10' })
  given_value!: string;

  @ApiProperty({ ...DECIMAL, description: 'The tolerance (plus or minus).', example: '0.020' })
  tolerance!: string;
}

/** `data.shape_group` of a failed verify. */
@ApiSchema({
  description:
    "`known_value`: the group of the diamond's declared polished shape; `given_value`: the `shape_group` sent, as a group " + '(a shape stands for its group).',
})
export class VerifyShapeGroupResult {
  @ApiProperty({ example: true })
  matched!: boolean;

  @ApiProperty({ ...SHAPE_GROUP, example: 'Round' })
  known_value!: string;

  @ApiProperty({ ...SHAPE_GROUP, example: 'Round' })
  given_value!: string;
}

export class VerifyFailureData {
  @ApiProperty({ type: () => VerifyCaratWeightResult })
  carat_weight!: VerifyCaratWeightResult;

  @ApiProperty({ type: () => VerifyShapeGroupResult })
  shape_group!: VerifyShapeGroupResult;
}

/** Verify, 200 on mismatch; all values are decimal strings / shape-group names. */
export class VerifyFailure {
  @ApiProperty({ enum: ['failure'], example: 'failure' })
  status!: 'failure';

  @ApiProperty({ type: () => VerifyFailureData })
  data!: VerifyFailureData;
}

export type VerifyResponse = VerifySuccess | VerifyFailure;

/** The 200 schema of verify: one of the two answers, told apart by `status`. */
export const VERIFY_RESPONSE_SCHEMA = {
  oneOf: [{ $ref: getSchemaPath(VerifySuccess) }, { $ref: getSchemaPath(VerifyFailure) }],
  discriminator: {
    propertyName: 'status',
    mapping: { success: getSchemaPath(VerifySuccess), failure: getSchemaPath(VerifyFailure) },
  },
};

/** Validate, 202. */
export class ValidateAccepted {
  @ApiProperty(DIAMOND_ID)
  diamond_id!: string;

  @ApiProperty({ ...REQUEST_ID, description: 'The id of the validation request (poll it at `status_url`).' })
  request_id!: string;

  /** Absolute address of the poll endpoint. */
  @ApiProperty({
    type: 'string',
    format: 'uri',
    description: 'Absolute address of the poll endpoint of this request.',
    example: 'https://gis.example.com/v2/diamonds/01jd3k8m5n2p7r4t6v9w1x3y5z/validate/7b2e4c1a-9f3d-4e6b-8a5c-2d1f0e9b8a7c',
  })
  status_url!: string;

  @ApiProperty({ enum: ['Pending'], example: 'Pending' })
  verification_status!: 'Pending';
}

/** Numeric parameters of a validation result (keys as reported, not as requested). */
export const NUMERIC_VALIDATION_PARAMETERS = [
  'crown_angle_avg_deg',
  'estimated_weight_crt',
  'girdle_avg_mm',
  'pavilion_angle_avg_deg',
  'table_avg_mm',
  'total_depth_mm',
] as const;
export type NumericValidationParameter = (typeof NUMERIC_VALIDATION_PARAMETERS)[number];
export const VALIDATION_PARAMETERS = [...NUMERIC_VALIDATION_PARAMETERS, 'shape'] as const;
export type ValidationParameterName = (typeof VALIDATION_PARAMETERS)[number];

const VALIDATION_RESULT = { enum: VALIDATION_RESULT_VALUES, enumName: 'ValidationResult' } as const;

/** platform_value = scan report, lab_value = request, difference = |lab - platform|; decimal strings. */
@ApiSchema({
  description:
    'A compared measurement: `validation_result` `matched` or `out_of_tolerance`; `missing` (either value absent) and ' +
    '`zero` (either value 0) only for the optional angles, which never change the status.',
})
export class NumericParameterResult {
  @ApiProperty({ ...VALIDATION_RESULT, example: 'matched' })
  validation_result!: ValidationResult;

  @ApiProperty({ ...SIGNED_DECIMAL, nullable: true, description: "The scan report's value; null when the report has none.", example: '1.01' })
  platform_value!: string | null;

  @ApiProperty({ ...DECIMAL, nullable: true, description: "The request's value; null when it was not sent.", example: '1.02' })
  lab_value!: string | null;

  /** Null when either value is missing. */
  @ApiProperty({ ...DECIMAL, nullable: true, description: '|lab_value - platform_value|; null when either is missing.', example: '0.01' })
  difference!: string | null;

  @ApiProperty({ ...DECIMAL, description: 'The tolerance (plus or minus).', example: '0.02' })
  tolerance!: string;
}

/** `shape` compares strings (shape groups); no difference or tolerance. */
@ApiSchema({
  description:
    'The shape comparison: `validation_result` `matched` or `out_of_tolerance`; `platform_value` the group of the scan ' +
    "report's shape, `lab_value` the `shape_group` sent, as a group.",
})
export class ShapeParameterResult {
  @ApiProperty({ ...VALIDATION_RESULT, example: 'matched' })
  validation_result!: ValidationResult;

  @ApiProperty({ ...SHAPE_GROUP, example: 'Round' })
  platform_value!: string;

  @ApiProperty({ ...SHAPE_GROUP, example: 'Round' })
  lab_value!: string;
}

/** The compared parameters, keyed as reported (`crown_angle_deg` is reported as `crown_angle_avg_deg`, ...). */
export class ValidationParameters {
  @ApiProperty({ type: () => NumericParameterResult, description: 'From `crown_angle_deg` (optional; tolerance 1.1 degrees).' })
  crown_angle_avg_deg!: NumericParameterResult;

  @ApiProperty({ type: () => NumericParameterResult, description: 'Tolerance 0.02 ct.' })
  estimated_weight_crt!: NumericParameterResult;

  @ApiProperty({ type: () => NumericParameterResult, description: 'Tolerance 0.5 mm.' })
  girdle_avg_mm!: NumericParameterResult;

  @ApiProperty({ type: () => NumericParameterResult, description: 'From `pavillion_angle_deg` (optional; tolerance 0.27 degrees).' })
  pavilion_angle_avg_deg!: NumericParameterResult;

  @ApiProperty({ type: () => NumericParameterResult, description: 'Tolerance 0.143 mm.' })
  table_avg_mm!: NumericParameterResult;

  @ApiProperty({ type: () => NumericParameterResult, description: 'Tolerance 0.073 mm.' })
  total_depth_mm!: NumericParameterResult;

  @ApiProperty({ type: () => ShapeParameterResult })
  shape!: ShapeParameterResult;
}

const VERIFICATION_STATUS = { enum: VERIFICATION_STATUS_VALUES, enumName: 'VerificationStatus' } as const;

/** Poll `GET {gis_url}/v2/diamonds/{diamond_id}/validate/{request_id}`. */
@ApiSchema({ description: 'A validation request: `verification_status` `Pending` until the worker has answered, then `Verified` or `Unverifiable`.' })
@ApiExtraModels(ValidationParameters)
export class ValidationPoll {
  @ApiProperty(DIAMOND_ID)
  diamond_id!: string;

  @ApiProperty(REQUEST_ID)
  request_id!: string;

  @ApiProperty({ type: 'string', format: 'date-time', example: '2025-03-04T10:00:00.000Z' })
  requested_at!: string;

  @ApiProperty({ ...VERIFICATION_STATUS, example: 'Verified' })
  verification_status!: VerificationStatus;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the status is what it is; null while Pending.',
    example: 'shape group and the four required measurements are within tolerance',
  })
  verification_description!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Set when the request could not be answered (e.g. the scan report changed).', example: null })
  verification_error!: string | null;

  /** Null while Pending (and when the request errored before comparing). */
  @ApiProperty({
    description: 'Null while Pending and when the request errored before comparing.',
    oneOf: [{ $ref: getSchemaPath(ValidationParameters) }, { type: 'null' }],
  })
  parameters!: ValidationParameters | null;
}

/** One entry of `GET {gis_url}/v2/diamonds/{diamond_id}/validate/historic`. */
@ApiSchema({ description: 'An answered or errored validation request (`verification_status` `Verified` or `Unverifiable`).' })
export class ValidationHistoryEntry {
  @ApiProperty(DIAMOND_ID)
  diamond_id!: string;

  @ApiProperty(REQUEST_ID)
  request_id!: string;

  @ApiProperty({ type: 'string', format: 'date-time', example: '2025-03-04T10:00:00.000Z' })
  requested_at!: string;

  @ApiProperty({ ...VERIFICATION_STATUS, example: 'Verified' })
  verification_status!: VerificationStatus;

  @ApiProperty({ type: 'string', nullable: true, example: 'shape group and the four required measurements are within tolerance' })
  verification_description!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: null })
  verification_error!: string | null;

  @ApiProperty({ description: 'True once the answer is older than the validation lifetime (default 30 days).', example: false })
  expired!: boolean;
}

export class ScanReportParseErrorEntry {
  @ApiProperty({ type: 'string', nullable: true, description: 'The text found (null when the element is empty or missing).', example: '1,02' })
  value!: string | null;

  @ApiProperty({ example: '/ScanReport/EstimatedWeight' })
  xpath!: string;

  @ApiProperty({ enum: SCAN_REPORT_ERROR_TYPE_VALUES, enumName: 'ScanReportErrorType', example: 'value_not_a_decimal' })
  error_type!: ScanReportErrorType;
}

/** Detail of `scan_report_parse_error`: field name -> entries. */
export type ScanReportParseErrorDetail = Record<string, ScanReportParseErrorEntry[]>;

export class ScanReportNotSupportedDetail {
  @ApiProperty({ example: 'the file is not a dtp-scan-report XML document' })
  generic_error!: string;
}

/** Body of an ineligible verify/validate (409; 410 for deleted with detail null). */
@ApiExtraModels(ScanReportParseErrorEntry, ScanReportNotSupportedDetail)
export class IneligibleResponse {
  @ApiProperty({ enum: GIS_INELIGIBILITY_REASON_VALUES, enumName: 'GisIneligibilityReason', example: 'diamond_is_not_polished' })
  reason!: GisIneligibilityReason;

  @ApiProperty({
    description:
      '`scan_report_parse_error`: a map from field name to its problems; `scan_report_not_supported`: ' +
      '`{generic_error}`; the other reasons: a sentence; `diamond_has_been_deleted`: null.',
    oneOf: [
      {
        type: 'object',
        additionalProperties: { type: 'array', items: { $ref: getSchemaPath(ScanReportParseErrorEntry) } },
      },
      { $ref: getSchemaPath(ScanReportNotSupportedDetail) },
      { type: 'string' },
      { type: 'null' },
    ],
    example: 'the diamond\'s lifecycle_state is "rough", not "polished"',
  })
  detail!: ScanReportParseErrorDetail | ScanReportNotSupportedDetail | string | null;
}

/** 410 of verify, validate and grading: the diamond was deleted. */
export class DiamondDeletedResponse {
  @ApiProperty({ enum: ['diamond_has_been_deleted'], example: 'diamond_has_been_deleted' })
  reason!: 'diamond_has_been_deleted';

  @ApiProperty({ type: 'null', example: null })
  detail!: null;
}

export const GIS_PREREQUISITE_REASON_VALUES = ['no_successful_verify', 'no_verified_validation'] as const;
export type GisPrerequisiteReason = (typeof GIS_PREREQUISITE_REASON_VALUES)[number];

/** 412: the lab has not done the step this one needs (verify before validate, a Verified validation before grading). */
export class PrerequisiteMissingResponse {
  @ApiProperty({
    enum: GIS_PREREQUISITE_REASON_VALUES,
    description: '`no_successful_verify` (validate), `no_verified_validation` (grading).',
    example: 'no_successful_verify',
  })
  reason!: GisPrerequisiteReason;

  @ApiProperty({ example: 'no successful verify request by this lab exists for this diamond; call verify first' })
  detail!: string;
}

/** GIS's 404: `{detail}` naming what was not found. */
export class GisNotFoundResponse {
  @ApiProperty({ enum: ['diamond not found', 'validation request not found'], example: 'diamond not found' })
  detail!: string;
}

/** 503 of verify and validate while the diamond's scan report cannot be read from the file store yet. */
export class ScanReportUnavailableResponse {
  @ApiProperty({ example: "the diamond's scan report cannot be read from the file store yet; retry later" })
  detail!: string;

  @ApiProperty({ description: 'The request id (also in the `X-Request-Id` header).', example: '3f2c1a9e-5b1d-4e8a-9c3b-1d2e3f4a5b6c' })
  request_id!: string;
}

/** `POST {gis_url}/v2/diamonds/{diamond_id}/grading`, 201. */
export class GradingAccepted {
  @ApiProperty({
    ...REQUEST_ID,
    description: 'The id of the `source: gis` graded measurement the platform creates from this submission.',
    example: 'c4a1f2e3-5b6d-4c7e-8f9a-0b1c2d3e4f5a',
  })
  grading_id!: string;

  @ApiProperty(DIAMOND_ID)
  diamond_id!: string;

  @ApiProperty({ enum: ['accepted'], example: 'accepted' })
  status!: 'accepted';
}
