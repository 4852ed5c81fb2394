import { isUtf8 } from 'node:buffer';
import { parse as parseQueryString } from 'node:querystring';
import { applyDecorators } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiConsumes } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JsonScanIssue, MAX_JSON_DEPTH, MAX_VALIDATION_DETAILS, scanJson } from '@dtp/domain';
import { RequestValidationException, ValidationDetail } from './errors';

/**
 * Input bounds every service applies to what it parses (DESIGN.md "Input bounds"), before validation and
 * before class-transformer (which recurses, and overflows the stack on a value nested a few thousand levels):
 * - depth: a JSON body nested past MAX_JSON_DEPTH (32) levels is refused with 422 on every route, in a Fastify
 *   hook right after parsing (V8's JSON.parse itself is iterative, so parsing a 100,000-level body is safe);
 * - text: strings and keys holding NUL or a lone surrogate, and keys the framework would drop (RESERVED_KEYS:
 *   `constructor`, `toString`, ...), are refused with 422 wherever a route takes its body or query through
 *   `@Body()`/`@Query()` (the global ApiValidationPipe); routes that read the raw request (the OAuth token
 *   endpoint, with its own RFC 6749 errors) apply their own rules.
 * Each refusal names where (`loc`), like any other 422; at most MAX_VALIDATION_DETAILS entries are listed.
 */
export const INPUT_BOUNDS = { maxDepth: MAX_JSON_DEPTH };

const TYPE_BY_ISSUE: Record<JsonScanIssue['kind'], string> = {
  too_deep: 'json_too_deep',
  too_large: 'too_long',
  invalid_text: 'string_invalid_characters',
  reserved_key: 'key_reserved',
};

/** Detail entries for the issues of a scan, located from `root` ('body', ['query', 'page'], ...). */
export function issueDetails(issues: JsonScanIssue[], root: string | (string | number)[]): ValidationDetail[] {
  const prefix = Array.isArray(root) ? root : [root];
  return issues.map((i) => ({
    loc: [...prefix, ...i.path],
    msg: i.kind === 'too_deep' ? `JSON ${i.message}` : i.message,
    type: TYPE_BY_ISSUE[i.kind],
  }));
}

/**
 * A parsed JSON/form/query value worth scanning: objects, arrays and strings; not bytes or streams (a raw body
 * parser's output). Query objects have a null-prototype-like prototype, so any other object counts.
 */
function isParsedValue(value: unknown): boolean {
  if (typeof value === 'string' || Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
  return typeof (value as { pipe?: unknown }).pipe !== 'function';
}

/**
 * The first depth issue of a parsed body (none for bodies that are not parsed JSON/form values), or its first key that
 * could pollute a prototype (`__proto__`, `constructor.prototype`): the JSON parser lets those through as members of
 * their own (as JSON.parse makes them, polluting nothing) so that they are refused here, named, before anything else
 * sees the body (see registerBodyDepthLimit).
 */
export function bodyDepthIssues(body: unknown, maxDepth = INPUT_BOUNDS.maxDepth): JsonScanIssue[] {
  if (!isParsedValue(body)) return [];
  return scanJson(body, { maxDepth, pollutingKeys: true, maxIssues: 1 }).issues;
}

/**
 * Fastify's JSON body parser options. Its default refuses a body with a `__proto__` key, or a `constructor` holding
 * `prototype` (secure-json-parse, against prototype pollution), as malformed JSON: "Body is not valid JSON", a
 * misleading 422 for well-formed JSON. Parsed as JSON.parse parses them instead (a member of its own, no prototype
 * changed), such a body is refused by the depth bound's hook, which runs next, before Nest or any handler, with a
 * 422 `key_reserved` naming the key where it is, like any other reserved key.
 */
export const JSON_PARSER_OPTIONS = { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' } as const;

/**
 * The JSON body parser of every service: Fastify's own (secure-json-parse with JSON_PARSER_OPTIONS), with two
 * differences. An empty body (`Content-Length: 0`) with a JSON content type is no body, as it is without the header:
 * Fastify's refuses it ("Body cannot be empty when content-type is set to 'application/json'"), so a client that
 * sends the header on every request (a session-wide header, common in integration code) got a 422 from every
 * operation that takes no body (unlock, select, rotate-secret, DELETE) or an optional one (share); an operation that
 * needs a body still refuses its absence, by its DTO ("Input should be a JSON object"). And a body that is not UTF-8
 * is refused rather than decoded with replacement characters. Registered after Nest's `app.init()`, which adds
 * Nest's own JSON parser (one that also made a parser per request); the only JSON parser a request meets.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser(JSON_PARSER_OPTIONS.onProtoPoisoning, JSON_PARSER_OPTIONS.onConstructorPoisoning);
  if (fastify.hasContentTypeParser('application/json')) fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    // RFC 8259 8.1: JSON text is UTF-8. Decoded as it comes, a byte that is not would become U+FFFD in the stored
    // value, without a word: refused instead (422 json_invalid, by the exception filter).
    if (!isUtf8(bytes)) return done(Object.assign(new Error(NOT_UTF8), { statusCode: 400 }), undefined);
    void parse(request, bytes.toString('utf8'), done);
  });
}

/** The Fastify route config key of the routes that read `application/x-www-form-urlencoded` bodies (TakesFormBody). */
export const FORM_BODY_ROUTE = 'dtpFormBody';
const FORM = 'application/x-www-form-urlencoded';

/**
 * Marks a route that reads form bodies (registerFormBodyParser) and says so in its OpenAPI operation, in one place:
 * `@ApiConsumes` of `alsoConsumes` (in that order) and the form type.
 */
export const TakesFormBody = (...alsoConsumes: string[]): MethodDecorator =>
  applyDecorators(ApiConsumes(...alsoConsumes, FORM), RouteConfig({ [FORM_BODY_ROUTE]: true }));

/**
 * Form bodies (`application/x-www-form-urlencoded`) are read only by the routes that take them (`@TakesFormBody()`:
 * the OAuth token endpoint, the passport's look-up form); sent to any other route, a form is refused like XML,
 * 422 `content_type` ("send application/json"). Nest parses forms for every route: JSON sent without its
 * Content-Type (curl's `-d` alone sends the form type) then met validation as an object whose one member was named
 * after the whole JSON text, and its 422 named that text as an unknown field. An empty form body is no body, as an
 * empty JSON body is (`curl -X POST -d ''` sends the form content type). Registered after Nest's `app.init()`, in
 * place of Nest's parser.
 */
export function registerFormBodyParser(fastify: FastifyInstance): void {
  if (fastify.hasContentTypeParser(FORM)) fastify.removeContentTypeParser(FORM);
  fastify.addContentTypeParser(FORM, { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
    if (config?.[FORM_BODY_ROUTE] !== true) return done(Object.assign(new Error(`${FORM} is not read here`), { statusCode: 415 }), undefined);
    done(null, parseQueryString(bytes.toString('utf8')));
  });
}

/** Why a JSON body that is not UTF-8 is refused (the 422's `msg` follows "JSON decode error: "). */
export const NOT_UTF8 = 'Body is not valid JSON: it is not UTF-8 (RFC 8259 8.1)';

/**
 * NUL / lone-surrogate issues and reserved keys (RESERVED_KEYS: `constructor`, `toString`, ..., which Nest and
 * class-transformer would drop without a word) of a parsed value (body or query), at most MAX_VALIDATION_DETAILS + 1;
 * and, in the same walk, whether the value is only what JSON.parse makes (`plain`: scanJson's checkPlain).
 */
export function textScan(value: unknown): { issues: JsonScanIssue[]; plain: boolean } {
  if (!isParsedValue(value)) return { issues: [], plain: false };
  const scan = scanJson(value, { checkText: true, reservedKeys: true, checkPlain: true, maxIssues: MAX_VALIDATION_DETAILS + 1 });
  return { issues: scan.issues.filter((i) => i.kind === 'invalid_text' || i.kind === 'reserved_key'), plain: scan.plain };
}

/**
 * Registers the depth bound, and the refusal of keys that could pollute a prototype, on every route of `fastify` (a
 * preValidation hook: after parsing, before Nest). Required with JSON_PARSER_OPTIONS (registerJsonBodyParser).
 */
export function registerBodyDepthLimit(fastify: FastifyInstance, maxDepth = INPUT_BOUNDS.maxDepth): void {
  fastify.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    const issues = bodyDepthIssues(request.body, maxDepth);
    if (issues.length === 0) return;
    const exception = new RequestValidationException(issueDetails(issues, 'body'));
    return reply.status(exception.getStatus()).send(exception.getResponse());
  });
}
