import type { FastifyInstance } from 'fastify';
import type { HttpSettings } from './http-settings';

export interface BodyDrainOptions {
  /** The most bytes of an unread request body read and thrown away after the answer (default 64 MiB). */
  maxBytes?: number;
  /** The longest that takes (default 10 s); past either bound the connection is closed. */
  maxMs?: number;
}

export const DEFAULT_DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_DRAIN_MAX_MS = 10_000;

/**
 * Lingering close for answers given before the request body was read (a 413 for a body past the limit, any
 * error decided before the body is read): the rest of the body, up to `maxBytes` and `maxMs`, is read and thrown
 * away after the answer, and the connection stays open for the next request.
 *
 * Without it Fastify answers such a request with `Connection: close` and Node closes the socket while the client
 * is still sending; the unread bytes make the kernel reset the connection, and a client that was still writing
 * (Node's `fetch`, so the SDK) reports `EPIPE`/`ECONNRESET` instead of the 413 it was sent. A body declared larger
 * than `maxBytes` keeps `Connection: close` (nobody should wait for gigabytes to be thrown away), as do answers
 * while the service drains for shutdown.
 */
export function registerBodyDrain(fastify: FastifyInstance, http: HttpSettings, opts: BodyDrainOptions = {}): void {
  const maxBytes = opts.maxBytes ?? DEFAULT_DRAIN_MAX_BYTES;
  const maxMs = opts.maxMs ?? DEFAULT_DRAIN_MAX_MS;
  const declared = (value: string | string[] | undefined): number | undefined => {
    const n = Number(Array.isArray(value) ? value[0] : value);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  };

  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && !request.raw.complete && !http.draining && String(reply.getHeader('connection') ?? '').toLowerCase() === 'close') {
      const length = declared(request.headers['content-length']);
      if (length === undefined || length <= maxBytes) reply.removeHeader('connection');
    }
    done(null, payload);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || raw.destroyed || String(reply.getHeader('connection') ?? '').toLowerCase() === 'close') return done();
    // An injected request (light-my-request: tests, the OpenAPI tools) has no connection to keep or close.
    if (typeof (raw.socket as { destroy?: unknown } | undefined)?.destroy !== 'function') return done();
    // What is left of the body: read and dropped (bounded), so the client can finish sending and read the answer.
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      raw.off('data', count);
      raw.socket.destroy();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) stop();
    };
    const timer = setTimeout(stop, maxMs);
    timer.unref();
    raw.on('data', count);
    raw.once('end', () => {
      clearTimeout(timer);
      raw.off('data', count);
    });
    raw.once('close', () => clearTimeout(timer));
    raw.resume();
    done();
  });
}
