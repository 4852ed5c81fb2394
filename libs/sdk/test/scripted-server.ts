import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the handler does with a request: answer it, or drop the connection without an answer. */
export type Reply = { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number } | 'drop';

export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 and a free port, answering each request with `handler(request, n)` (n counts
 * the requests to the same method and path, from 1). Tests script 503s, 429s, dropped connections and tokens
 * with it; no mocking library involved.
 */
export async function startScriptedServer(handler: (req: SeenRequest, n: number) => Reply | Promise<Reply>): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      const key = `${request.method} ${request.path.split('?')[0]}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      void Promise.resolve(handler(request, n)).then((reply) => {
        if (reply === 'drop') {
          req.socket.destroy();
          return;
        }
        const send = () => {
          if (res.destroyed) return;
          const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
          res.writeHead(reply.status, {
            'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json',
            'x-request-id': String(req.headers['x-request-id'] ?? 'none'),
            ...(reply.headers ?? {}),
          });
          res.end(text);
        };
        if (reply.delayMs) {
          const timer = setTimeout(() => {
            timers.delete(timer);
            send();
          }, reply.delayMs);
          timers.add(timer);
        } else send();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JWT-shaped token (not signed: the scripted server does not check it) with the given claims. */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'ES256', typ: 'at+jwt' })}.${part(claims)}.sig`;
}
