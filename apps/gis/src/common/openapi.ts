import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiParam, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import {
  DIAMOND_ID_PATTERN,
  DiamondDeletedResponse,
  GisNotFoundResponse,
  IneligibleResponse,
  MessageErrorResponse,
  PrerequisiteMissingResponse,
  ScanReportUnavailableResponse,
  UUID_PATTERN,
} from '@dtp/domain';
import { SCAN_REPORT_RETRY_AFTER_SECONDS } from './errors';

/*
 * GIS's own error answers in the OpenAPI document: GIS answers `{detail}` for an unknown resource and
 * `{reason, detail}` for a refused diamond or a missing prerequisite (common/errors.ts), not the kit's
 * `{message, reason}`, so these are documented here rather than with the kit's ApiErrors.
 */

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
};

/** `diamond_id` in the path: out of format answers the same 404 as an unknown id. */
export const ApiDiamondIdParam = () =>
  ApiParam({
    name: 'diamond_id',
    description: 'The diamond id (lowercase letters and digits); a value out of this format answers 404 like an unknown id.',
    schema: { type: 'string', pattern: DIAMOND_ID_PATTERN.source, example: '01jd3k8m5n2p7r4t6v9w1x3y5z' },
  });

/** `request_id` in the path: a UUID; anything else answers 404. */
export const ApiRequestIdParam = () =>
  ApiParam({
    name: 'request_id',
    description: 'The validation request id from validate-json; a value that is not a UUID answers 404.',
    schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN.source, example: '7b2e4c1a-9f3d-4e6b-8a5c-2d1f0e9b8a7c' },
  });

/** 404 `{detail}`. */
export const ApiGisNotFound = (description: string) => ApiResponse({ status: 404, description, type: GisNotFoundResponse });

/** 409 `{reason, detail}`: the diamond is not eligible for lab work. */
export const ApiGisIneligible = (description: string) => ApiResponse({ status: 409, description, type: IneligibleResponse });

/** 410 `{reason: "diamond_has_been_deleted", detail: null}`. */
export const ApiGisDeleted = () => ApiResponse({ status: 410, description: 'The diamond has been deleted.', type: DiamondDeletedResponse });

/** 412 `{reason, detail}`: the step this one needs has not been done by the calling lab. */
export const ApiGisPrerequisite = (description: string) => ApiResponse({ status: 412, description, type: PrerequisiteMissingResponse });

/**
 * 503 with Retry-After: the database or the issuer's signing keys cannot be reached (`{message, request_id}`);
 * with `scanReport`, also the diamond's scan report not readable from the file store yet (`{detail, request_id}`).
 */
export function ApiGisUnavailable(options: { scanReport?: boolean } = {}): MethodDecorator & ClassDecorator {
  const dependency = "The database or the issuer's signing keys cannot be reached (`{message, request_id}`)";
  if (!options.scanReport) {
    return ApiResponse({ status: 503, description: `${dependency}; retry later.`, type: MessageErrorResponse, headers: RETRY_AFTER });
  }
  return applyDecorators(
    ApiExtraModels(ScanReportUnavailableResponse),
    ApiResponse({
      status: 503,
      description:
        `${dependency}, or the diamond's scan report cannot be read from the file store yet ` +
        `(\`{detail, request_id}\`, \`Retry-After: ${SCAN_REPORT_RETRY_AFTER_SECONDS}\`); retry later.`,
      headers: RETRY_AFTER,
      schema: { oneOf: [{ $ref: getSchemaPath(ScanReportUnavailableResponse) }, { $ref: getSchemaPath(MessageErrorResponse) }] },
    }),
  );
}
