import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ResponseContractCheck } from '@dtp/service-kit';

/**
 * Contract tests (#14): every answer a service gives in the tests is checked against the operation's response in
 * the service's own OpenAPI document: the status must be documented, a JSON body must match the documented schema,
 * a documented header must be present when the document says so. Broken answers are collected; the Jest setup
 * (tools/testing/contract-setup.ts) fails the test during which they happened. So the documents cannot drift
 * from what the code does.
 *
 * Answers outside the document (health, metrics, docs, unmatched routes, HEAD/OPTIONS) are not checked.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ContractViolation {
  service: string;
  operation: string;
  status: number;
  problem: string;
}

/** Kept on the global object: the Jest setup reads them without loading this module (and ajv) in every file. */
const STORE = Symbol.for('dtp.contractViolations');
function store(): ContractViolation[] {
  const holder = globalThis as { [STORE]?: ContractViolation[] };
  return (holder[STORE] ??= []);
}

/** The violations since the last call (and forgets them). */
export function takeContractViolations(): ContractViolation[] {
  const list = store();
  return list.splice(0, list.length);
}

export function describeViolations(list: ContractViolation[]): string {
  return list.map((v) => `${v.service} ${v.operation} -> ${v.status}: ${v.problem}`).join('\n');
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `/diamonds/:diamond_id/files/:kind` (Fastify) -> `/diamonds/{diamond_id}/files/{kind}` (OpenAPI). */
export const openApiPath = (fastifyPath: string) => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Rewrites local refs (`#/components/...`) to the document's id, so that a schema compiles on its own. */
function rebase(node: unknown, id: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rebase(n, id));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${id}${v}` : rebase(v, id);
  }
  return out;
}

function resolveRef(doc: Json, node: Json | undefined): Json | undefined {
  let current = node;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i += 1) {
    current = (current.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: Json | undefined, key: string) => at?.[key], doc);
  }
  return current;
}

/** The documented response of an operation for a status (`200`, then `2XX`, then `default`). */
function documentedResponse(op: Json, status: number): Json | undefined {
  const responses = (op.responses ?? {}) as Json;
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

const mediaType = (contentType: unknown) =>
  String(contentType ?? '')
    .split(';', 1)[0]
    .trim()
    .toLowerCase();

/** Builds the check for one application's document. */
let documents = 0;
export function contractCheckFor(service: string, document: object, record: (v: ContractViolation) => void = (v) => void store().push(v)) {
  const doc = document as Json;
  documents += 1;
  const id = `openapi:${service}:${documents}`;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema({ $id: id, components: rebase(doc.components ?? {}, id) } as object);
  const compiled = new Map<string, ValidateFunction | null>();

  return (request: { method: string; routeOptions?: { url?: string } }, reply: { statusCode: number; getHeader(name: string): unknown }, payload: unknown) => {
    const method = request.method.toLowerCase();
    const route = request.routeOptions?.url;
    if (!route || !HTTP_METHODS.has(method)) return;
    const path = openApiPath(route);
    const op = (doc.paths?.[path] as Json | undefined)?.[method] as Json | undefined;
    if (!op) return;
    const operation = `${method.toUpperCase()} ${path}`;
    const status = reply.statusCode;
    const fail = (problem: string) => record({ service, operation, status, problem });
    const response = resolveRef(doc, documentedResponse(op, status));
    if (!response) return fail(`status not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})`);
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if ((resolveRef(doc, header as Json) as Json).required && reply.getHeader(name) === undefined) fail(`required header ${name} missing`);
    }
    const content = (response.content ?? {}) as Json;
    const type = mediaType(reply.getHeader('content-type'));
    if (Object.keys(content).length === 0) return;
    if (status === 204 || status === 304) return;
    if (!type) return fail('no content type, but the document promises a body');
    const media = (content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*']) as Json | undefined;
    if (!media) return fail(`content type ${type} not documented (documented: ${Object.keys(content).join(', ')})`);
    if (type !== 'application/json' && !type.endsWith('+json')) return;
    const key = `${operation} ${status} ${type}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = media.schema ? ajv.compile(rebase(media.schema, id) as object) : null;
      compiled.set(key, validate);
    }
    if (!validate) return;
    let body: unknown;
    try {
      body = JSON.parse(typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload));
    } catch {
      // A stream or an empty body cannot be checked here.
      return;
    }
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      fail(`body does not match the schema: ${errors.join('; ')}`);
    }
  };
}

/**
 * The services whose OpenAPI documents are complete (#14): their answers are checked in every test, and
 * tools/test/openapi.spec.ts holds their documents to "a schema for everything, an example per operation". A
 * service joins when its document is done; all four by the end of #14.
 */
export const DOCUMENTED_SERVICES: readonly string[] = ['auth', 'platform', 'search', 'gis'];

/** The check the service kit runs on every answer (tools/testing/contract-setup.ts installs it). */
export const responseContractCheck: ResponseContractCheck = (service, document) =>
  DOCUMENTED_SERVICES.includes(service) ? contractCheckFor(service, document) : () => undefined;
