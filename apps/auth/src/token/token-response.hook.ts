import type { FastifyInstance } from 'fastify';
import { NO_STORE_HEADERS } from './oauth-error';

export const TOKEN_PATH = '/oauth/token';

/**
 * Every answer of the token endpoint carries `Cache-Control: no-store` and `Pragma: no-cache`, and every error is
 * an RFC 6749 5.2 body. A request body that Fastify could not parse (malformed JSON, unsupported content type)
 * never reaches the controller: the kit answers it with a 422 `detail` body, rewritten here to `invalid_request`.
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
    if (typeof body.error === 'string' && typeof body.error_description === 'string') return payload;
    if (reply.statusCode >= 500) return payload;
    if (reply.statusCode !== 413) void reply.code(400);
    const message = typeof body.message === 'string' ? body.message : 'malformed request';
    void reply.header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify({ error: 'invalid_request', error_description: `the request body could not be read: ${message}` });
  });
}
