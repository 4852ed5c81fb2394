import {
  NumericParameterResult,
  NumericValidationParameter,
  ShapeParameterResult,
  TOLERANCES,
  ValidationParameters,
  VerificationStatus,
  absDifference,
  resolveShapeGroup,
  shapeGroupOf,
  toDecimal,
  withinTolerance,
} from '@dtp/domain';
import type { ScanReportValues } from '../scan-reports/scan-report.parser';

/** The lab's validate-json body as stored with the job. */
export interface ValidationInput {
  shape_group: string;
  estimated_weight_crt: number;
  girdle_avg_mm: number;
  table_avg_mm: number;
  total_depth_mm: number;
  crown_angle_deg?: number | null;
  pavillion_angle_deg?: number | null;
}

export interface ValidationOutcome {
  status: Exclude<VerificationStatus, 'Pending'>;
  description: string;
  parameters: ValidationParameters;
}

/** The four measurements that decide the status (with the shape group). */
const REQUIRED: readonly { param: NumericValidationParameter; lab: keyof ValidationInput }[] = [
  { param: 'estimated_weight_crt', lab: 'estimated_weight_crt' },
  { param: 'girdle_avg_mm', lab: 'girdle_avg_mm' },
  { param: 'table_avg_mm', lab: 'table_avg_mm' },
  { param: 'total_depth_mm', lab: 'total_depth_mm' },
];

/** Compared when available; reported under the result names, never change the status. */
const OPTIONAL: readonly { param: NumericValidationParameter; lab: keyof ValidationInput }[] = [
  { param: 'crown_angle_avg_deg', lab: 'crown_angle_deg' },
  { param: 'pavilion_angle_avg_deg', lab: 'pavillion_angle_deg' },
];

const labText = (value: unknown): string | null => (typeof value === 'number' && Number.isFinite(value) ? toDecimal(value).toFixed() : null);

function compareRequired(param: NumericValidationParameter, lab: string, platform: string): NumericParameterResult {
  const tolerance = TOLERANCES[param];
  return {
    validation_result: withinTolerance(lab, platform, tolerance) ? 'matched' : 'out_of_tolerance',
    platform_value: platform,
    lab_value: lab,
    difference: absDifference(lab, platform),
    tolerance,
  };
}

function compareOptional(param: NumericValidationParameter, lab: string | null, platform: string | null): NumericParameterResult {
  const tolerance = TOLERANCES[param];
  if (lab === null || platform === null) {
    return { validation_result: 'missing', platform_value: platform, lab_value: lab, difference: null, tolerance };
  }
  const difference = absDifference(lab, platform);
  if (toDecimal(lab).isZero() || toDecimal(platform).isZero()) {
    return { validation_result: 'zero', platform_value: platform, lab_value: lab, difference, tolerance };
  }
  return {
    validation_result: withinTolerance(lab, platform, tolerance) ? 'matched' : 'out_of_tolerance',
    platform_value: platform,
    lab_value: lab,
    difference,
    tolerance,
  };
}

/**
 * Compares a lab's measurements with a scan report's (DESIGN.md "GIS"), in decimal arithmetic:
 * `platform_value` = the report's value, `lab_value` = the request's, `difference` = |lab - platform|.
 * `Verified` when the shape groups match and the four required measurements are within tolerance, else
 * `Unverifiable`. The optional angles are reported (`matched`, `out_of_tolerance`, `missing`, `zero`) and
 * never change the status.
 */
export function compareValidation(input: ValidationInput, report: ScanReportValues): ValidationOutcome {
  const numeric = {} as Record<NumericValidationParameter, NumericParameterResult>;
  for (const { param, lab } of REQUIRED) {
    const labValue = labText(input[lab]);
    if (labValue === null) throw new Error(`the request has no numeric ${String(lab)}`);
    numeric[param] = compareRequired(param, labValue, report[param] as string);
  }
  for (const { param, lab } of OPTIONAL) {
    numeric[param] = compareOptional(param, labText(input[lab]), report[param]);
  }
  const labGroup = resolveShapeGroup(input.shape_group) ?? input.shape_group;
  const platformGroup = shapeGroupOf(report.shape);
  const shape: ShapeParameterResult = {
    validation_result: labGroup === platformGroup ? 'matched' : 'out_of_tolerance',
    platform_value: platformGroup,
    lab_value: labGroup,
  };
  const failed = [
    ...(shape.validation_result === 'matched' ? [] : ['shape']),
    ...REQUIRED.filter(({ param }) => numeric[param].validation_result !== 'matched').map(({ param }) => param),
  ];
  const notes = OPTIONAL.filter(({ param }) => numeric[param].validation_result !== 'matched').map(
    ({ param }) => `${param} ${numeric[param].validation_result}`,
  );
  const suffix = notes.length > 0 ? ` (not counted: ${notes.join(', ')})` : '';
  return failed.length === 0
    ? {
        status: 'Verified',
        description: `shape group and the four required measurements are within tolerance${suffix}`,
        parameters: { ...numeric, shape },
      }
    : {
        status: 'Unverifiable',
        description: `not within tolerance: ${failed.join(', ')}${suffix}`,
        parameters: { ...numeric, shape },
      };
}
