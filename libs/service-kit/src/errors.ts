import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  UnprocessableEntityException,
  ValidationError,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_VALIDATION_DETAILS, toValidationDetail, ValidationDetailItem } from '@dtp/domain';

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
    const shown = details.slice(0, MAX_VALIDATION_DETAILS);
    const omitted = details.length - shown.length;
    const message = shown.map((d) => `${d.loc.slice(1).join('.') || d.loc[0]}: ${d.msg}`).join('; ');
    super({
      detail: shown,
      message: omitted > 0 ? `${message}; and ${omitted} more` : message,
      ...(omitted > 0 ? { detail_omitted: omitted } : {}),
    });
  }
}

/** A body that cannot be parsed at all (malformed JSON, wrong content type) is also a 422 with `detail`. */
function bodyParseDetail(err: { code?: string; message: string; statusCode?: number }): ValidationDetail[] | null {
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return [{ loc: ['body'], msg: err.message, type: 'content_type' }];
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return [{ loc: ['body'], msg: 'Field required', type: 'missing' }];
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
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      // Nest turns Fastify's body-parsing errors into plain HttpExceptions with a string message.
      const parse = typeof response === 'string' ? bodyParseDetail({ statusCode: status, message: response }) : null;
      if (parse) return void reply.status(HttpStatus.UNPROCESSABLE_ENTITY).send({ detail: parse, message: parse[0].msg });
      const body: Record<string, unknown> =
        typeof response === 'object' && response !== null
          ? normaliseNestBody(response as Record<string, unknown>, status)
          : { message: String(response) };
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
  const parse = err && typeof err === 'object' ? bodyParseDetail(err) : null;
  if (parse) return void reply.status(HttpStatus.UNPROCESSABLE_ENTITY).send({ detail: parse, message: parse[0].msg });
  if (err?.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return void reply.status(err.statusCode).send({ message: err.message, code: err.code });
  }
  request.log.error({ err: exception }, 'unhandled error');
  return void reply
    .status(HttpStatus.INTERNAL_SERVER_ERROR)
    .send({ message: 'Internal server error; contact the platform administrators if it persists', request_id: request.id });
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
