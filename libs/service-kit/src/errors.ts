import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, UnprocessableEntityException, ValidationError } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, DomainErrorKind, toValidationDetail, validationBody, ValidationDetailItem } from '@dtp/domain';

/** The one place a domain error's kind becomes an HTTP status. */
export const DOMAIN_ERROR_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: HttpStatus.UNPROCESSABLE_ENTITY,
  bad_request: HttpStatus.BAD_REQUEST,
  unauthenticated: HttpStatus.UNAUTHORIZED,
  forbidden: HttpStatus.FORBIDDEN,
  not_found: HttpStatus.NOT_FOUND,
  conflict: HttpStatus.CONFLICT,
  gone: HttpStatus.GONE,
  precondition_failed: HttpStatus.PRECONDITION_FAILED,
  too_large: HttpStatus.PAYLOAD_TOO_LARGE,
  rate_limited: HttpStatus.TOO_MANY_REQUESTS,
  unavailable: HttpStatus.SERVICE_UNAVAILABLE,
};

/** The headers a domain error asks for: its protocol headers, `Retry-After`, `WWW-Authenticate`. */
export function domainErrorHeaders(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.challenge !== undefined) headers['WWW-Authenticate'] = error.challenge;
  return headers;
}

/** One entry of the FastAPI-style 422 body: `{"detail": [{loc, msg, type}]}`. */
export type ValidationDetail = ValidationDetailItem;

/** Flattens class-validator errors to detail entries located from `root` (one implementation: @dtp/domain). */
export function toValidationDetails(errors: ValidationError[], root: string = 'body'): ValidationDetail[] {
  return toValidationDetail(errors, [root]);
}

/**
 * A 422 with `{detail: [...], message}`. At most MAX_VALIDATION_DETAILS (50) entries are sent (DESIGN.md "Input
 * bounds": a body with 100,000 bad array items must not get a 22 MB answer); `detail_omitted` counts the rest.
 * `details` keeps them all for the code that re-locates them.
 */
export class RequestValidationException extends UnprocessableEntityException {
  constructor(readonly details: ValidationDetail[]) {
    super(validationBody(details));
  }
}

/**
 * A body in a content type no parser of the route takes (XML, or multipart where no file is expected): DESIGN.md
 * makes a body that cannot be read a 422 with `detail`, like malformed JSON, not Fastify's 415.
 */
function unreadableContentType(request: FastifyRequest): ValidationDetail {
  const type =
    String(request.headers['content-type'] ?? '')
      .split(';', 1)[0]
      .trim() || '(none)';
  return { loc: ['body'], msg: `content type ${type.slice(0, 100)} cannot be read here; send application/json`, type: 'content_type' };
}

/** A body that cannot be parsed at all (malformed JSON, wrong content type) is also a 422 with `detail`. */
function bodyParseDetail(err: { code?: string; message: string; statusCode?: number }): ValidationDetail[] | null {
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return [{ loc: ['body'], msg: err.message, type: 'content_type' }];
  // V8's JSON.parse does not recurse, but should a body parser ever overflow on a deep body (Fastify marks its
  // parser errors 400), that is the client's 422. A RangeError elsewhere stays a 500: it is a bug to see.
  if (err.statusCode === 400 && (err instanceof RangeError || /call stack size/i.test(err.message))) {
    return [{ loc: ['body'], msg: 'JSON nested too deeply', type: 'json_too_deep' }];
  }
  const invalidJson = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (err.statusCode === 400 && /JSON/i.test(err.message));
  if (invalidJson || err instanceof SyntaxError) return [{ loc: ['body'], msg: `JSON decode error: ${err.message}`, type: 'json_invalid' }];
  return null;
}

/**
 * Every error leaves as JSON. HttpExceptions whose response is an object are sent as that object (so a
 * handler decides the exact body, e.g. `{message, reason}`); string responses become `{message}`. Anything
 * else is a 500 with the request id, logged with its stack.
 */
@Catch()
export class JsonExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost) {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const request = ctx.getRequest<FastifyRequest>();
    if (exception instanceof DomainError) {
      const status = DOMAIN_ERROR_STATUS[exception.kind];
      for (const [name, value] of Object.entries(domainErrorHeaders(exception))) void reply.header(name, value);
      if (status >= 500) {
        // Like every 5xx answer of the kit: logged, and its body names the request id.
        request.log.error({ err: exception.cause ?? exception, status }, 'request failed');
        return void reply.status(status).send({ ...exception.body, request_id: exception.body.request_id ?? request.id });
      }
      return void reply.status(status).send(exception.body);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      // Nest turns Fastify's body-parsing errors into plain HttpExceptions with a string message.
      const parse =
        status === HttpStatus.UNSUPPORTED_MEDIA_TYPE
          ? [unreadableContentType(request)]
          : typeof response === 'string'
            ? bodyParseDetail({ statusCode: status, message: response })
            : null;
      if (parse) return void reply.status(HttpStatus.UNPROCESSABLE_ENTITY).send({ detail: parse, message: parse[0].msg });
      const body: Record<string, unknown> =
        typeof response === 'object' && response !== null ? normaliseNestBody(response as Record<string, unknown>, status) : { message: String(response) };
      if (status === HttpStatus.INTERNAL_SERVER_ERROR && isDependencyUnavailable(exception.cause)) {
        return sendUnavailable(exception.cause, request, reply);
      }
      if (status >= 500) {
        request.log.error({ err: exception.cause ?? exception, status }, 'request failed');
        body.request_id ??= request.id;
      }
      for (const [name, value] of Object.entries(exceptionHeaders(exception))) void reply.header(name, value);
      return void reply.status(status).send(body);
    }
    return sendPlainError(exception, request, reply);
  }
}

/**
 * Errors that are not HttpExceptions: body parsing failures (422 with `detail`), Fastify's own 4xx errors, and
 * everything else as a 500 that names the request id but not the cause.
 */
export function sendPlainError(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const err = exception as { code?: string; message: string; statusCode?: number };
  const parse = err && typeof err === 'object' ? (err.statusCode === 415 ? [unreadableContentType(request)] : bodyParseDetail(err)) : null;
  if (parse) return void reply.status(HttpStatus.UNPROCESSABLE_ENTITY).send({ detail: parse, message: parse[0].msg });
  if (err?.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return void reply.status(err.statusCode).send({ message: err.message, code: err.code });
  }
  if (isDependencyUnavailable(exception)) return sendUnavailable(exception, request, reply);
  request.log.error({ err: exception }, 'unhandled error');
  return void reply
    .status(HttpStatus.INTERNAL_SERVER_ERROR)
    .send({ message: 'Internal server error; contact the platform administrators if it persists', request_id: request.id });
}

/** Seconds a client is asked to wait (`Retry-After`) when the database or another dependency cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * SQLSTATEs that mean "the database cannot serve now", not "this request is wrong": class 08 (connection
 * exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now: starting up, shutting down,
 * recovery), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

/** Socket and name-resolution errors of a connection to a dependency (Node's `code`). */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The errors node-postgres, pg-pool and PostgreSQL raise without a code when a connection is lost or cannot be
 * had: a terminated connection, the pool's connect timeout, a client left unusable by a connection error, a
 * database closed to connections (`ALLOW_CONNECTIONS false`, SQLSTATE 55000 shared with unrelated states).
 */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /has encountered a connection error and is not queryable/,
  /is not currently accepting connections/,
  /^Connection is not established/,
];

/**
 * True when `err`, or anything it wraps (`cause`, TypeORM's `driverError`, an AggregateError's `errors`), says
 * that the database (or another dependency reached over the network) is unreachable: the request failed for a
 * reason that retrying later fixes, so it answers 503, not 500.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [err];
  while (pending.length > 0 && seen.size < 32) {
    const e = pending.pop();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { code, message, cause, driverError, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; driverError?: unknown; errors?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || NETWORK_ERROR_CODES.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => m.test(message))) return true;
    pending.push(cause, driverError);
    if (Array.isArray(errors)) pending.push(...errors.slice(0, 8));
  }
  return false;
}

/** 503 with `Retry-After`: the request may succeed once the database is back; the cause is logged, not sent. */
function sendUnavailable(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  request.log.error({ err: exception }, 'request failed: a dependency is unavailable');
  return void reply
    .status(HttpStatus.SERVICE_UNAVAILABLE)
    .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
    .send({ message: 'Service temporarily unavailable: its database (or a service it depends on) cannot be reached. Retry later.', request_id: request.id });
}

/** Nest's built-in exceptions answer `{statusCode, message, error}`; keep `message`, drop the noise. */
function normaliseNestBody(body: Record<string, unknown>, status: number): Record<string, unknown> {
  if ('statusCode' in body && 'message' in body && Object.keys(body).every((k) => ['statusCode', 'message', 'error'].includes(k))) {
    const message = Array.isArray(body.message) ? body.message.join('; ') : body.message;
    return { message, error: body.error ?? HttpStatus[status] };
  }
  return body;
}

/** Exceptions may carry response headers (e.g. WWW-Authenticate, Retry-After) in a `headers` field. */
function exceptionHeaders(exception: HttpException): Record<string, string> {
  const h = (exception as HttpException & { headers?: Record<string, string> }).headers;
  return h ?? {};
}

/** An HttpException that also sets response headers. */
export class HttpErrorWithHeaders extends HttpException {
  constructor(
    body: Record<string, unknown>,
    status: number,
    readonly headers: Record<string, string>,
  ) {
    super(body, status);
  }
}
