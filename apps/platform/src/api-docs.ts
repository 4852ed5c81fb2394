/**
 * What platform's operations share in their OpenAPI description (#14): the path ids with the formats the
 * PathIdPipes check, and the error answers most operations can give. Decorators only; no behaviour.
 */
import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiResponse } from '@nestjs/swagger';
import { diamondIdField, gradingIdField, MessageErrorResponse, ValidationErrorResponse } from '@dtp/domain';

/** `{diamond_id}`: a diamond id; out of format answers 404 like an unknown id. */
export const ApiDiamondIdParam = (description = 'The diamond.') =>
  ApiParam({ name: 'diamond_id', description: `${description} Out of format answers 404 like an unknown id.`, schema: diamondIdField() as object });

/** `{shipment_id}`: minted like a diamond id. */
export const ApiShipmentIdParam = () =>
  ApiParam({ name: 'shipment_id', description: 'A shipment sent to you. Out of format answers 404 like an unknown id.', schema: diamondIdField() as object });

/** `{grading_id}`: a graded measurement of the diamond. */
export const ApiGradingIdParam = () =>
  ApiParam({
    name: 'grading_id',
    description: 'A graded measurement of the diamond. Out of format answers 404 like an unknown id.',
    schema: gradingIdField() as object,
  });

/** The path ids of the graded-measurement choice operations. */
export const ApiDiamondAndGradingParams = () => applyDecorators(ApiDiamondIdParam('A diamond you hold.'), ApiGradingIdParam());

/** The 400 of a path segment the HTTP layer cannot decode. */
export const PATH_400 = 'A path segment that is not valid percent-encoded UTF-8 (answered by the HTTP layer: `{message, code}`).';

/**
 * What the HTTP layer answers for a path id before any handler runs: 400 for bytes that are not valid percent-encoded
 * UTF-8, 414 for a segment longer than the router takes (`{message, code}`).
 */
export const ApiPathErrors = (description400: string = PATH_400) =>
  applyDecorators(
    ApiResponse({ status: 400, description: description400, type: MessageErrorResponse }),
    ApiResponse({
      status: 414,
      description: 'A path segment longer than the router takes (answered by the HTTP layer: `{message, code}`).',
      type: MessageErrorResponse,
    }),
  );

/** Operations that take no body: one sent anyway is still read, and refused when it is too large or broken. */
export const ApiNoBodyErrors = () =>
  applyDecorators(
    ApiResponse({
      status: 413,
      description: 'This operation takes no body; one sent anyway that is larger than 1 MiB is refused.',
      type: MessageErrorResponse,
    }),
    ApiResponse({
      status: 422,
      description:
        'This operation takes no body; one sent anyway that cannot be read (malformed JSON, a content type other than JSON) is refused (`detail` names it).',
      type: ValidationErrorResponse,
    }),
  );

/** Error answers, worded once. */
export const Errors = {
  /** 403 of a role the operation is not for (the guard's `{message}`, no reason). */
  role: (roles: string) => `The caller's role may not call this operation (it is for ${roles}).`,
  /** 403 when another participant holds the diamond. */
  notHolder: { description: 'Another participant holds the diamond', reasons: ['not_holder'] },
  /** 404 of a diamond id. */
  diamondNotFound: 'No such diamond (never registered, deleted, or an id out of format).',
  /** 409 of a diamond inside an unanswered shipment. */
  inTransit: 'The diamond is in a shipment the recipient has not answered yet',
  /** 413 of a JSON body past the service's body limit. */
  bodyTooLarge: 'The body is larger than the limit (1 MiB).',
  /** 422 of a JSON body. */
  invalidBody:
    'The body cannot be read (malformed JSON, a content type other than application/json) or does not match the schema: each bad field is named in `detail` (unknown fields are refused as `extra_forbidden`).',
  /** 503 of a dependency that cannot be reached. */
  unavailable: "The database (or the token issuer's keys) cannot be reached right now; retry after `Retry-After` seconds.",
} as const;

/**
 * How the three paths of the same shape are told apart (linters report them as ambiguous): the spec's own paths,
 * kept as they are.
 */
export const SAME_SHAPE_PATHS =
  ' Path shape: `/diamonds/{diamond_id}/files/{kind}` (POST), `/diamonds/{diamond_id}/share/{share_id}` (DELETE) and ' +
  '`/diamonds/{diamond_id}/{grading_id}/select|deselect` (PATCH) have the same shape. They differ by method and by a ' +
  'literal segment (`files`, `share`, `select`, `deselect`), which the router matches before a parameter.';
