import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_IN_USE,
  IDEMPOTENCY_KEY_INVALID_TYPE,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_REUSED_TYPE,
  IDEMPOTENCY_REPLAYED_HEADER,
} from '@dtp/domain';
import { IDEMPOTENT_METHODS } from './idempotent-routes';

const IN_USE_SCHEMA = 'IdempotencyKeyInUseResponse';
const KEY_ERROR_SCHEMA = 'IdempotencyKeyErrorResponse';
const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });

const HEADER_DESCRIPTION =
  'Optional (IETF draft "The Idempotency-Key HTTP Header Field"). A unique key per logical request, e.g. a UUID. ' +
  'The first answer to a request with this key (2xx, and 403, 404, 409, 410, 412 from the operation itself) is stored ' +
  'for 24 hours per participant, in the same transaction as the change; a retry with the same key, method, path and ' +
  'body gets that answer again (header `Idempotency-Replayed: true`) and changes nothing. Another request with the same ' +
  'key: 422. A retry while the first is still running: 409 `idempotency_key_in_use`. 422, 5xx and other answers are not ' +
  `stored (nothing changed; a retry runs again). 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, bare or as an ` +
  'RFC 8941 quoted string.';

const PARAMETER: ParameterObject = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description: HEADER_DESCRIPTION,
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
  example: '5f0c6f0e-8a7b-4d4e-9c55-3f2a1b6d7e90',
};

const SCHEMAS: Record<string, SchemaObject> = {
  [IN_USE_SCHEMA]: {
    type: 'object',
    description: 'A request with this Idempotency-Key is still running; retry later to get its answer.',
    required: ['message', 'reason'],
    properties: { message: { type: 'string' }, reason: { type: 'string', enum: [IDEMPOTENCY_KEY_IN_USE] } },
    example: {
      message: 'a request with this Idempotency-Key is still being processed; retry after it has finished to get its answer',
      reason: IDEMPOTENCY_KEY_IN_USE,
    },
  },
  [KEY_ERROR_SCHEMA]: {
    type: 'object',
    description: 'The Idempotency-Key is malformed, or was used with another request.',
    required: ['detail'],
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { type: 'string' }, example: ['header', IDEMPOTENCY_KEY_HEADER] },
            msg: { type: 'string' },
            type: { type: 'string', enum: [IDEMPOTENCY_KEY_INVALID_TYPE, IDEMPOTENCY_KEY_REUSED_TYPE] },
          },
        },
      },
      message: { type: 'string' },
    },
  },
};

const REPLAYED_HEADER = {
  description: 'Present (`true`) when this is the stored answer of an earlier request with the same Idempotency-Key.',
  schema: { type: 'string', enum: ['true'] },
};

/**
 * The Idempotency-Key of every POST and PATCH operation (IDEMPOTENT_METHODS; not those declared public with
 * `security: []`): the optional header parameter, `Idempotency-Replayed` on its 2xx answers, the 409
 * `idempotency_key_in_use` and the 422 of a bad or reused key (merged into the operation's own 409 and 422 when it
 * documents them). Returns a new document; the one given is not changed.
 */
export function documentIdempotencyKey(document: OpenAPIObject): OpenAPIObject {
  const doc = structuredClone(document);
  let used = false;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of IDEMPOTENT_METHODS) {
      const op = (item as Record<string, OperationObject | undefined>)[method.toLowerCase()];
      if (!op || (Array.isArray(op.security) && op.security.length === 0)) continue;
      documentOperation(op);
      used = true;
    }
  }
  if (used) {
    doc.components ??= {};
    doc.components.schemas = { ...(doc.components.schemas ?? {}), ...SCHEMAS };
  }
  return doc;
}

function documentOperation(op: OperationObject): void {
  const params = (op.parameters ??= []);
  if (!params.some((p) => 'name' in p && p.in === 'header' && p.name.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase())) params.push({ ...PARAMETER });
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (/^2\d\d$/.test(status) && response && !('$ref' in response)) {
      response.headers = { ...(response.headers ?? {}), [IDEMPOTENCY_REPLAYED_HEADER]: REPLAYED_HEADER };
    }
  }
  op.responses ??= {};
  merge(op, '409', 'A request with this Idempotency-Key is still running (`reason: idempotency_key_in_use`).', ref(IN_USE_SCHEMA));
  merge(op, '422', 'The Idempotency-Key is malformed or was used with another request (`loc: ["header", "Idempotency-Key"]`).', ref(KEY_ERROR_SCHEMA));
}

/** Adds `schema` as one more body of the operation's `status` answer (anyOf: a body may match both), or the answer itself. */
function merge(op: OperationObject, status: string, description: string, schema: ReferenceObject): void {
  const existing = op.responses[status];
  if (!existing || '$ref' in existing) {
    if (!existing) op.responses[status] = { description, content: { 'application/json': { schema } } };
    return;
  }
  const response = existing as ResponseObject;
  if (!response.description?.includes(description)) response.description = response.description ? `${response.description} ${description}` : description;
  const media = ((response.content ??= {})['application/json'] ??= {});
  if (!media.schema) media.schema = schema;
  else if ('anyOf' in media.schema && Array.isArray(media.schema.anyOf)) {
    if (!media.schema.anyOf.some((s) => '$ref' in s && s.$ref === schema.$ref)) media.schema.anyOf.push(schema);
  } else if (!('$ref' in media.schema && media.schema.$ref === schema.$ref)) media.schema = { anyOf: [media.schema, schema] };
}
