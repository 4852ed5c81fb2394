import type { FastifyInstance } from 'fastify';
import { ERROR_DESCRIPTION_CHARSET, NO_STORE_HEADERS, safeDescription } from './oauth-error';

export const TOKEN_PATH = '/oauth/token';

/** What the kit's error body says about a body it could not read, as a fixed RFC 6749-safe description. */
function bodyReadDescription(status: number, body: Record<string, unknown>): string {
  if (status === 413) return 'the request body is too large';
  const detail = Array.isArray(body.detail) ? (body.detail[0] as Record<string, unknown> | undefined) : undefined;
  const type = typeof detail?.type === 'string' ? detail.type : '';
  const message = typeof body.message === 'string' ? body.message : '';
  if (type === 'content_type' || /media type/i.test(message)) {
    return 'unsupported content type; send application/json or application/x-www-form-urlencoded';
  }
  if (type === 'json_invalid') return 'the request body is not valid JSON';
  if (type === 'json_too_deep') return 'the request body is nested too deeply';
  if (type === 'missing') return 'the request body is empty';
  return message ? `the request body could not be read: ${message}` : 'the request body could not be read';
}

/**
 * Every answer of the token endpoint carries `Cache-Control: no-store` and `Pragma: no-cache`, and every error is
 * an RFC 6749 5.2 body. A request body that Fastify could not parse (malformed JSON, unsupported content type)
 * never reaches the controller: the kit answers it with a 422 `detail` body, rewritten here to `invalid_request`.
 * Whatever produced the error, its `error_description` leaves within the RFC's character set (the last gate:
 * OAuthError already sanitises its own).
 */
export function registerTokenResponseHook(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions?.url !== TOKEN_PATH) return payload;
    void reply.headers(NO_STORE_HEADERS);
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(payload) as Record<string, unknown>;
    } catch {
      return payload;
    }
    if (body === null || typeof body !== 'object') return payload;
    if (typeof body.error === 'string' && typeof body.error_description === 'string') {
      if (ERROR_DESCRIPTION_CHARSET.test(body.error_description)) return payload;
      return JSON.stringify({ ...body, error_description: safeDescription(body.error_description) });
    }
    if (reply.statusCode >= 500) return payload;
    const description = safeDescription(bodyReadDescription(reply.statusCode, body));
    if (reply.statusCode !== 413) void reply.code(400);
    void reply.header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify({ error: 'invalid_request', error_description: description });
  });
}
