import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface BodyDrainOptions {
  /** The most bytes of an unread request body read and thrown away after the answer (default 64 MiB). */
  maxBytes?: number;
  /** The longest the connection lingers for them (default 10 s); past either bound it is closed outright. */
  maxMs?: number;
}

export const DEFAULT_DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_DRAIN_MAX_MS = 10_000;

/**
 * Lingering close (as web servers have long done it) for answers given before the request body was read to its
 * end: a 413 for a body past the limit, an upload refused or failed midway. Such an answer says
 * `Connection: close` (Fastify's, or the handler's, choice: the rest of the body is not worth parsing), and Node
 * then closes the socket as soon as the answer is written. With the client still sending, the unread bytes make
 * the kernel reset the connection, and a client that was still writing (Node's `fetch`, so the SDK) reports
 * `EPIPE`/`ECONNRESET` instead of the answer it was sent.
 *
 * Here the answer is written and our side of the connection shut (FIN: the client learns it may stop), but the
 * rest of the body is still read and dropped, up to `maxBytes` and `maxMs`, until the client closes its side; only
 * then, or past a bound, is the socket destroyed. A body declared larger than `maxBytes` is not waited for.
 */
export function registerBodyDrain(fastify: FastifyInstance, opts: BodyDrainOptions = {}): void {
  const maxBytes = opts.maxBytes ?? DEFAULT_DRAIN_MAX_BYTES;
  const maxMs = opts.maxMs ?? DEFAULT_DRAIN_MAX_MS;

  fastify.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    const socket = raw.socket as Socket | undefined;
    // An injected request (light-my-request: tests, the OpenAPI tools) has no connection to linger on.
    if (raw.complete || typeof socket?.destroySoon !== 'function' || String(reply.getHeader('connection') ?? '').toLowerCase() !== 'close')
      return done(null, payload);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) return done(null, payload);
    let read = 0;
    let timer: NodeJS.Timeout | undefined;
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) socket.destroy();
    };
    raw.on('data', count);
    socket.once('close', () => {
      clearTimeout(timer);
      raw.off('data', count);
    });
    // What Node calls once the answer is written (the connection closes): shut our side, keep reading.
    socket.destroySoon = function lingeringClose(this: Socket) {
      timer = setTimeout(() => this.destroy(), maxMs);
      timer.unref();
      raw.resume();
      if (this.writable) this.end();
      if (this.readableEnded) this.destroy();
      else this.once('end', () => this.destroy());
    };
    done(null, payload);
  });
}
