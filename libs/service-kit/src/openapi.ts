import { applyDecorators, DynamicModule, INestApplication, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ApiResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { MessageErrorResponse, ValidationDetailEntry, ValidationErrorResponse } from '@dtp/domain';
import pino from 'pino';
import { KitModule } from './kit.module';
import { newServiceContext } from './listen';
import { PUBLIC_EXTENSION } from './public.decorator';

/** What a service says about itself in its OpenAPI document. */
export interface DocsOptions {
  title: string;
  description: string;
  version: string;
  /** The service's public base address (the document's `servers`). */
  serverUrl?: string;
  /**
   * Every operation needs an access token for `audience` from the auth service's client-credentials endpoint,
   * unless marked @Public(). `false`: the service has no token-protected operations (auth itself).
   */
  security?: { tokenUrl: string; audience: string } | false;
  /** The admin bearer scheme (auth's onboarding operations: `Authorization: Bearer <AUTH_ADMIN_TOKEN>`). */
  adminBearer?: boolean;
  /**
   * What each operation tag is about: the document's top-level `tags`, in this order. A tag an operation uses
   * but this map lacks is still listed (by name), after these.
   */
  tags?: Record<string, string>;
  /** Last changes to the built document (e.g. the Idempotency-Key header on the operations that take it). */
  transforms?: ((document: OpenAPIObject) => OpenAPIObject)[];
}

/** The name of the client-credentials scheme in every document. */
export const OAUTH_SCHEME = 'oauth2';
/** The name of the admin bearer scheme (auth). */
export const ADMIN_SCHEME = 'admin';
/** The mutual TLS security scheme (OpenAPI 3.1 `mutualTLS`) of the services that accept legacy client certificates. */
export const MTLS_SCHEME = 'mutualTLS';

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 412 | 413 | 422 | 429 | 503;
type ErrorSpec = string | { description: string; reasons?: readonly string[] };

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
};
const WWW_AUTHENTICATE = {
  'WWW-Authenticate': {
    description: 'The Bearer challenge (RFC 6750), with `error="invalid_token"` and a description when a token was sent.',
    schema: { type: 'string' },
  },
};

/**
 * The error answers an operation can give, each with its body schema: 422 the `detail` list, every other status
 * `{message, reason?}` (the reasons an operation uses are listed in the description). 401 documents
 * `WWW-Authenticate`, 429 and 503 `Retry-After`. 500 and the answers every operation shares are added to the
 * document by `finishDocument`.
 */
export function ApiErrors(errors: Partial<Record<ErrorStatus, ErrorSpec>>): MethodDecorator & ClassDecorator {
  const decorators = Object.entries(errors).map(([code, spec]) => {
    const status = Number(code);
    const { description, reasons } = typeof spec === 'string' ? { description: spec, reasons: undefined } : spec!;
    const text = reasons?.length ? `${description} (\`reason\`: ${reasons.map((r) => `\`${r}\``).join(', ')})` : description;
    return ApiResponse({
      status,
      description: text,
      type: status === 422 ? ValidationErrorResponse : MessageErrorResponse,
      headers: status === 401 ? WWW_AUTHENTICATE : status === 429 || status === 503 ? RETRY_AFTER : undefined,
    });
  });
  return applyDecorators(...decorators);
}

/** Builds the document of a running (or previewed) application: OpenAPI 3.1, finished by `finishDocument`. */
export function buildOpenApiDocument(app: INestApplication, docs: DocsOptions): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(docs.title)
    .setDescription(docs.description)
    .setVersion(docs.version)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0');
  if (docs.serverUrl) builder.addServer(docs.serverUrl);
  if (docs.security) {
    builder.addOAuth2(
      {
        type: 'oauth2',
        description:
          `A client-credentials access token from the auth service (${docs.security.tokenUrl}) for the audience ` +
          `\`${docs.security.audience}\` (the \`audience\` parameter of the token request; a token for another ` +
          'service is refused with 401). Sent as `Authorization: Bearer <token>`; the prefix may be left out. ' +
          'The token is a JWT handled as RFC8725 (JSON Web Token Best Current Practices) asks: one algorithm (ES256) ' +
          'fixed by the verifier, never taken from the header; issuer, audience, expiry and type (`at+jwt`, RFC 9068) ' +
          'checked; the lifetime bounded (TOKEN_TTL_SECONDS of the issuer, at most 24 h). Client credentials have no refresh token (RFC 6749 4.4.3): a client ' +
          'asks for a new token when its token expires.',
        flows: { clientCredentials: { tokenUrl: docs.security.tokenUrl, scopes: {} } },
      },
      OAUTH_SCHEME,
    );
    builder.addSecurityRequirements(OAUTH_SCHEME);
    // Legacy integrations (before 2023-06-30): a registered client certificate over mutual TLS, instead of a token.
    builder.addSecurity(MTLS_SCHEME, {
      type: 'mutualTLS',
      description:
        'Legacy integrations only (participants whose integration started before 2023-06-30): a client certificate registered by the operator, presented in the TLS handshake (the service\'s HTTPS port, or an ingress that forwards it), with no token; the call acts as the certificate\'s participant and role. A token issued over mutual TLS carries `cnf.x5t#S256` and is accepted only with that certificate (RFC 8705). docs/auth.md "Mutual TLS".',
    } as unknown as Parameters<DocumentBuilder['addSecurity']>[1]);
    builder.addSecurityRequirements(MTLS_SCHEME);
  }
  if (docs.adminBearer) {
    // addSecurity, not addBearerAuth: that one says `bearerFormat: JWT`, and the admin token is an opaque secret.
    builder.addSecurity(ADMIN_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description: "The operator's admin token (AUTH_ADMIN_TOKEN, an opaque secret), for onboarding and client management.",
    });
  }
  const document = SwaggerModule.createDocument(app, builder.build(), {
    // The error bodies every operation may answer with are in every document's components.
    extraModels: [MessageErrorResponse, ValidationErrorResponse, ValidationDetailEntry],
    operationIdFactory: (controllerKey, methodKey) => camelOperationId(controllerKey, methodKey),
  });
  const finished = (docs.transforms ?? []).reduce((doc, transform) => transform(doc), finishDocument(document, docs.tags));
  // Again after the transforms: what they add (headers, parameters) gets the same implied bounds.
  statImpliedBounds(finished);
  return finished;
}

/**
 * The document of a service without starting it: Nest's preview mode scans the modules and controllers but
 * creates no provider, so no database or broker is needed (`npm run openapi`, the freshness test).
 */
export async function previewOpenApiDocument(name: string, module: Type<unknown> | DynamicModule, docs: DocsOptions): Promise<OpenAPIObject> {
  const ctx = newServiceContext(name, pino({ level: 'silent' }));
  @Module({ imports: [KitModule.forRoot(ctx), module] })
  class PreviewRootModule {}
  const app = await NestFactory.create(PreviewRootModule, new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApiDocument(app, docs);
  } finally {
    await app.close();
  }
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `ShipmentsController.reject` -> `shipmentsReject` (used where an operation names no operationId of its own). */
export function camelOperationId(controllerKey: string, methodKey: string): string {
  return lowerFirst(controllerKey.replace(/Controller$/, '')) + upperFirst(methodKey);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Json = Record<string, unknown>;

/**
 * Turns what @nestjs/swagger writes into valid OpenAPI 3.1 and adds what every operation shares:
 * - `nullable: true` (3.0) becomes a `null` member of `type` (3.1 is JSON Schema 2020-12);
 * - operations marked @Public() get `security: []`;
 * - one operation served under two paths keeps its operationId on the first and gets a path suffix on the others
 *   (operationIds must be unique);
 * - every operation documents 500 (`request_id` in the body); operations with a token document 401;
 * - the bounds the schemas already imply are stated as linters and generators read them: `format: int32|int64`
 *   on every integer, `maxLength` on strings whose pattern or format fixes it (ids, UUIDs);
 * - the tags operations use are listed at the top level, described by `tags`; servers say they are public
 *   (`x-internal: false`).
 */
export function finishDocument(document: OpenAPIObject, tags: Record<string, string> = {}): OpenAPIObject {
  const doc = structuredClone(document) as unknown as Json;
  convertNullable(doc);
  statImpliedBounds(doc);
  for (const server of (doc.servers ?? []) as Json[]) server['x-internal'] = false;
  const seen = new Map<string, string>();
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      if (op[PUBLIC_EXTENSION]) {
        delete op[PUBLIC_EXTENSION];
        op.security = [];
      }
      if (typeof op.operationId === 'string') {
        let id = op.operationId.replace(/\[\d+\]$/, '');
        const first = seen.get(id);
        if (first !== undefined) id = `${id}${pathSuffix(distinctSegments(path, first))}`;
        seen.set(id, path);
        op.operationId = id;
      }
      const responses = (op.responses ??= {}) as Json;
      const secured = op.security === undefined ? Array.isArray(doc.security) && (doc.security as unknown[]).length > 0 : (op.security as unknown[]).length > 0;
      if (secured && !responses['401']) {
        responses['401'] = errorResponse('No token, or a token that is expired, revoked, for another audience or otherwise invalid.', {
          'WWW-Authenticate': {
            description: 'The Bearer challenge (RFC 6750), with `error="invalid_token"` and a description when a token was sent.',
            schema: { type: 'string' },
          },
        });
      }
      responses['500'] ??= errorResponse('Unexpected failure; the body names the request id to quote when reporting it.');
    }
  }
  pruneUnusedErrorModels(doc);
  listTags(doc, tags);
  return doc as unknown as OpenAPIObject;
}

/** Top-level `tags`: those described first (in the given order), then any other an operation uses. */
function listTags(doc: Json, described: Record<string, string>): void {
  const used = new Set<string>();
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) for (const tag of ((item[method] as Json | undefined)?.tags ?? []) as string[]) used.add(tag);
  }
  const list = Object.entries(described)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
  for (const name of used) if (!(name in described)) list.push({ name, description: '' });
  if (list.length > 0) doc.tags = list.map((t) => (t.description ? t : { name: t.name }));
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** `^[class]{n}$` or `^[class]{m,n}$`: a pattern of one character class repeated, whose longest match is n. */
const BOUNDED_CLASS_PATTERN = /^\^\[[^\]]+\]\{(?:\d+,)?(\d+)\}\$$/;
const UUID_LENGTH = 36;

/**
 * Bounds a schema already implies, stated the way linters and generators read them:
 * - integers get `format: int32` when their declared range fits 32 bits, else `int64` (counts, sizes and log
 *   positions are PostgreSQL bigints or JavaScript safe integers);
 * - strings whose pattern is one character class repeated at most n times, or whose format is `uuid`, get that
 *   `maxLength` (the server already refuses anything longer, through the same pattern).
 */
function statImpliedBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) statImpliedBounds(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Json;
  for (const [key, value] of Object.entries(obj)) if (key !== 'example' && key !== 'examples') statImpliedBounds(value);
  const types = Array.isArray(obj.type) ? (obj.type as unknown[]) : [obj.type];
  if (types.includes('integer') && obj.format === undefined) {
    const min = typeof obj.minimum === 'number' ? obj.minimum : undefined;
    const max = typeof obj.maximum === 'number' ? obj.maximum : undefined;
    obj.format = min !== undefined && max !== undefined && min >= INT32_MIN && max <= INT32_MAX ? 'int32' : 'int64';
  }
  if (types.includes('string') && obj.maxLength === undefined) {
    const bounded = typeof obj.pattern === 'string' ? BOUNDED_CLASS_PATTERN.exec(obj.pattern) : null;
    if (bounded) obj.maxLength = Number(bounded[1]);
    else if (obj.format === 'uuid') obj.maxLength = UUID_LENGTH;
  }
}

/** The shared error models are added to every document; those that no operation of this one uses are removed. */
function pruneUnusedErrorModels(doc: Json): void {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  for (let changed = true; changed;) {
    changed = false;
    for (const name of [ValidationErrorResponse.name, ValidationDetailEntry.name, MessageErrorResponse.name]) {
      if (!schemas[name]) continue;
      const { [name]: self, ...rest } = schemas;
      void self;
      const text = JSON.stringify({ ...doc, components: { ...(doc.components as Json), schemas: rest } });
      if (!text.includes(`"#/components/schemas/${name}"`)) {
        delete schemas[name];
        changed = true;
      }
    }
  }
}

function errorResponse(description: string, headers?: Json): Json {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/MessageErrorResponse' } } },
  };
}

/** The segments of `path` that `other` lacks (`/v2/transfer/in/{id}/reject` vs `/transfer/in/{id}/reject`: `/v2`). */
function distinctSegments(path: string, other: string): string {
  const theirs = new Set(other.split('/'));
  const own = path.split('/').filter((part) => part && !theirs.has(part));
  return own.length > 0 ? `/${own.join('/')}` : path;
}

/** `/v2/transfer/in/{shipment_id}/accept` -> `V2TransferInShipmentIdAccept`. */
function pathSuffix(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((part) => upperFirst(part.replace(/[{}]/g, '').replace(/[_-](\w)/g, (_, c: string) => c.toUpperCase())))
    .join('');
}

/** Recursively rewrites `nullable: true` into 3.1's `type: [T, 'null']` (or `oneOf` with `{type: 'null'}` for refs). */
function convertNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) convertNullable(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Json;
  for (const value of Object.values(obj)) convertNullable(value);
  if (obj.nullable === true) {
    delete obj.nullable;
    if (obj.$ref || obj.allOf || obj.oneOf || obj.anyOf) {
      // A composition (a nested class: `{type: 'object', allOf: [{$ref}]}`) cannot take `null` through `type`:
      // the composition would still refuse it. Null becomes the other branch of a oneOf.
      const inner: Json = {};
      for (const key of ['$ref', 'allOf', 'oneOf', 'anyOf', 'type'] as const) {
        if (obj[key] !== undefined) {
          inner[key] = obj[key];
          delete obj[key];
        }
      }
      // A lone `allOf: [x]` (a class or a named enum) is x itself: `oneOf: [x, null]` (Redocly refuses a one-entry allOf).
      const lone = Array.isArray(inner.allOf) && inner.allOf.length === 1 && !inner.$ref && !inner.oneOf && !inner.anyOf;
      obj.oneOf = [lone ? (inner.allOf as unknown[])[0] : inner, { type: 'null' }];
    } else if (typeof obj.type === 'string') {
      obj.type = [obj.type, 'null'];
      if (Array.isArray(obj.enum) && !obj.enum.includes(null)) obj.enum = [...obj.enum, null];
    } else if (Array.isArray(obj.type)) {
      if (!obj.type.includes('null')) obj.type = [...obj.type, 'null'];
    }
  } else if (obj.nullable === false) {
    delete obj.nullable;
  }
}
