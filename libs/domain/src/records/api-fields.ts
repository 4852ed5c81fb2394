/**
 * Building blocks of the OpenAPI schemas (#14): the `@ApiProperty` options of the values that recur in records and
 * request DTOs (ids, decimals, timestamps, the spec's enumerations), so each is described once, with the pattern or
 * value set the code enforces. Every enumeration becomes one named component schema (`enumName`).
 */
import type { ApiPropertyOptions, ApiSchemaOptions } from '@nestjs/swagger';
import { DELETE_FAILURE_REASON_VALUES } from '../enums/deletion';
import {
  ASSURANCE_LEVEL_VALUES,
  CURRENT_STAGE_VALUES,
  DATA_REQUEST_STATUS_VALUES,
  DATA_REQUEST_TYPE_VALUES,
  GIS_STATUS_VALUES,
  LIFECYCLE_STATE_VALUES,
  POSSESSION_STATE_VALUES,
  UNLOCK_STATUS_VALUES,
  VERIFICATION_STATUS_VALUES,
} from '../enums/diamond-state';
import { FILE_KIND_VALUES } from '../enums/files';
import { GRADED_MEASUREMENT_SOURCE_VALUES, VALIDATION_LEVEL_VALUES } from '../enums/grading';
import { GRADING_LAB_VALUES } from '../enums/grading-lab';
import {
  CLARITY_VALUES,
  COLOUR_VALUES,
  CULET_CONDITION_VALUES,
  CULET_SIZE_VALUES,
  CUT_GRADE_VALUES,
  FANCY_COLOUR_INTENSITY_VALUES,
  FANCY_COLOUR_VALUES,
  FLUORESCENCE_COLOUR_VALUES,
  FLUORESCENCE_INTENSITY_VALUES,
  GIRDLE_CONDITION_VALUES,
  GIRDLE_THICKNESS_VALUES,
  SYMMETRY_VALUES,
} from '../enums/grading-scales';
import { SHAPE_VALUES } from '../enums/shape';
import { SHIPMENT_STATUS_VALUES, SHIPMENT_TYPE_VALUES, TRANSFER_STATE_VALUES } from '../enums/shipment';
import { DECIMAL_TEXT_PATTERN } from '../rules/decimal';
import { DIAMOND_ID_PATTERN, FILE_HASH_PATTERN, GRADING_ID_PATTERN } from '../rules/ids';
import { CARATS_MAX, ID_MAX_LENGTH, TAGS_MAX_BYTES, TAGS_MAX_DEPTH } from '../rules/limits';

type Options = ApiPropertyOptions;

/**
 * A schema in OpenAPI 3.1 terms that @nestjs/swagger's 3.0 types do not describe (`type: [T, 'null']`, a numeric
 * `exclusiveMinimum`): passed through to the document as written.
 */
const raw = (schema: Record<string, unknown>): never => schema as never;

/** One named enumeration: `{enum, enumName}` (each becomes `#/components/schemas/<name>`). */
const named = (enumName: string, values: readonly string[]) => ({ enum: [...values], enumName }) as const;

/** The spec's enumerations (names as in the spec; `UnlockStatus` is its DiamondUnlockStatus). */
export const ApiEnums = {
  Clarity: named('Clarity', CLARITY_VALUES),
  Colour: named('Colour', COLOUR_VALUES),
  CuletCondition: named('CuletCondition', CULET_CONDITION_VALUES),
  CuletSize: named('CuletSize', CULET_SIZE_VALUES),
  CutGrade: named('CutGrade', CUT_GRADE_VALUES),
  FancyColour: named('FancyColour', FANCY_COLOUR_VALUES),
  FancyColourIntensity: named('FancyColourIntensity', FANCY_COLOUR_INTENSITY_VALUES),
  FluorescenceColour: named('FluorescenceColour', FLUORESCENCE_COLOUR_VALUES),
  FluorescenceIntensity: named('FluorescenceIntensity', FLUORESCENCE_INTENSITY_VALUES),
  GirdleCondition: named('GirdleCondition', GIRDLE_CONDITION_VALUES),
  GirdleThickness: named('GirdleThickness', GIRDLE_THICKNESS_VALUES),
  Symmetry: named('Symmetry', SYMMETRY_VALUES),
  Shape: named('Shape', SHAPE_VALUES),
  GradingLab: named('GradingLab', GRADING_LAB_VALUES),
  GradedMeasurementSource: named('GradedMeasurementSource', GRADED_MEASUREMENT_SOURCE_VALUES),
  ValidationLevel: named('ValidationLevel', VALIDATION_LEVEL_VALUES),
  AssuranceLevel: named('AssuranceLevel', ASSURANCE_LEVEL_VALUES),
  LifecycleState: named('LifecycleState', LIFECYCLE_STATE_VALUES),
  CurrentStage: named('CurrentStage', CURRENT_STAGE_VALUES),
  PossessionState: named('PossessionState', POSSESSION_STATE_VALUES),
  UnlockStatus: named('DiamondUnlockStatus', UNLOCK_STATUS_VALUES),
  GisStatus: named('GisStatus', GIS_STATUS_VALUES),
  DataRequestStatus: named('DataRequestStatus', DATA_REQUEST_STATUS_VALUES),
  DataRequestType: named('DataRequestType', DATA_REQUEST_TYPE_VALUES),
  VerificationStatus: named('VerificationStatus', VERIFICATION_STATUS_VALUES),
  ShipmentType: named('ShipmentType', SHIPMENT_TYPE_VALUES),
  ShipmentStatus: named('ShipmentStatus', SHIPMENT_STATUS_VALUES),
  TransferState: named('TransferState', TRANSFER_STATE_VALUES),
  DeleteFailureReason: named('DeleteFailureReason', DELETE_FAILURE_REASON_VALUES),
  FileKind: named('FileKind', FILE_KIND_VALUES),
} as const;

/** A platform diamond id (also a shipment id): 20 to 98 lowercase letters and digits; ours are lowercased ULIDs. */
export const DIAMOND_ID_EXAMPLE = '01j0k6v8m2x4c9d7f3h5n1p0qr';
export const diamondIdField = (extra: Options = {}): Options => ({
  type: 'string',
  pattern: DIAMOND_ID_PATTERN.source,
  example: DIAMOND_ID_EXAMPLE,
  ...extra,
});

/** Lowercase hex SHA-256 of a file's bytes: its key in every file ref, in search's file path and its ETag. */
export const FILE_HASH_EXAMPLE = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
export const fileHashField = (extra: Options = {}): Options => ({
  type: 'string',
  pattern: FILE_HASH_PATTERN.source,
  example: FILE_HASH_EXAMPLE,
  ...extra,
});

/** A UUID (participants, legacy record ids, graded measurements the platform mints). */
export const uuidField = (extra: Options = {}): Options => ({
  type: 'string',
  format: 'uuid',
  example: '3b241101-e2bb-4255-8caf-4136c566a962',
  ...extra,
});

/** A graded measurement id: a UUID, or a lab's own id in the same safe alphabet (1 to 128 characters). */
export const gradingIdField = (extra: Options = {}): Options => ({
  type: 'string',
  pattern: GRADING_ID_PATTERN.source,
  example: '7d9f0e7a-1c55-4c0e-9a43-2f8f6f1b5b11',
  ...extra,
});

/** Decimal text as stored and answered ("1.25"; no sign, no exponent). */
export const decimalTextField = (extra: Options = {}): Options => ({
  type: 'string',
  pattern: DECIMAL_TEXT_PATTERN.source,
  example: '1.25',
  ...extra,
});

/** A timestamp the platform writes (RFC 3339, UTC, milliseconds). */
export const dateTimeField = (extra: Options = {}): Options => ({
  type: 'string',
  format: 'date-time',
  example: '2024-05-01T10:00:00.000Z',
  ...extra,
});

/**
 * A timestamp a participant supplied, answered verbatim: ISO 8601 date-time text as sent (an RFC 3339 date-time
 * is recommended; other ISO 8601 forms the request accepted are echoed as they came).
 */
export const isoTextField = (extra: Options = {}): Options => ({
  type: 'string',
  example: '2024-05-01T10:00:00Z',
  ...extra,
});

/**
 * A participant's own identifier of a diamond (`participant_id`): 1 to 256 characters, no leading or trailing
 * whitespace (NoSurroundingWhitespace).
 */
export const participantIdField = (description: string): Options => ({
  type: 'string',
  minLength: 1,
  maxLength: ID_MAX_LENGTH,
  pattern: '^\\S(?:[\\s\\S]*\\S)?$',
  description,
  example: 'STOCK-000123',
});

/** A free-form JSON object (tags): at most 16 KiB as JSON and 8 levels deep. */
export const tagsField = (extra: Options = {}): Options =>
  ({
    type: 'object',
    additionalProperties: true,
    description: `Free-form JSON object (at most ${TAGS_MAX_BYTES} bytes as JSON, nested at most ${TAGS_MAX_DEPTH} levels).`,
    example: { lot: 'A-17' },
    ...extra,
  }) as Options;

/**
 * `entity_specific_tags`: extra keys allowed; the known key `dit_session_id` is a string or null.
 */
export const entitySpecificTagsField = (extra: Options = {}): Options =>
  ({
    type: 'object',
    additionalProperties: true,
    properties: { dit_session_id: raw({ type: ['string', 'null'] }) },
    description:
      `Extra keys allowed; the known key \`dit_session_id\` is a string or null (at most ${TAGS_MAX_BYTES} bytes as JSON, ` +
      `nested at most ${TAGS_MAX_DEPTH} levels).`,
    example: { dit_session_id: 'dit-2024-05-01-0007' },
    ...extra,
  }) as Options;

/**
 * A decimal in a request: a number greater than 0, or plain decimal text greater than 0 ("1.25"; no sign, no
 * exponent, at most 40 characters). Stored and answered as decimal text.
 */
export const positiveDecimalInput = (extra: Options = {}): Options => ({
  oneOf: [raw({ type: 'number', exclusiveMinimum: 0 }), { type: 'string', pattern: DECIMAL_TEXT_PATTERN.source, maxLength: 40 }],
  description: 'A number greater than 0, or decimal text greater than 0 such as "1.25"; stored and answered as decimal text.',
  example: '1.25',
  ...extra,
});

/**
 * A carat weight in a request: greater than 0, at most 100,000, at most 3 decimal places, as a number or as decimal
 * text ("1.25"). Stored and answered as decimal text.
 */
export const caratsInput = (extra: Options = {}): Options => ({
  oneOf: [raw({ type: 'number', exclusiveMinimum: 0, maximum: CARATS_MAX }), { type: 'string', pattern: DECIMAL_TEXT_PATTERN.source, maxLength: 40 }],
  description:
    `Weight in carats: greater than 0, at most ${CARATS_MAX}, at most 3 decimal places; a number or decimal text ` +
    '("1.25"). Stored and answered as decimal text.',
  example: '1.25',
  ...extra,
});

/**
 * A request body's schema: named as the spec names it, refusing members it does not list (`additionalProperties:
 * false`), since the validation pipe rejects unknown fields with 422 `extra_forbidden`.
 */
export const closedSchema = (name: string, description: string): ApiSchemaOptions => ({ name, description, additionalProperties: false }) as ApiSchemaOptions;
