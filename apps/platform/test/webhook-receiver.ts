import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HeldPort } from '@dtp/testing';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; subject: string; data: Record<string, unknown>; [k: string]: unknown };
  at: number;
}

type Answer = number | 'hang' | 'drop' | { status: number; body?: string; headers?: Record<string, string> };

/**
 * A real HTTP receiver on 127.0.0.1, port 0, or on a port a test holds (`HeldPort`, for a receiver that is down and
 * comes back at the same URL). `answer` decides each response (default 204); it may return 'hang' to never answer (a
 * timeout) or 'drop' to destroy the socket. Every request is recorded, answered or not.
 */
export interface Receiver {
  url: string;
  received: Received[];
  /** Requests answered 2xx (what the receiver accepted), in arrival order. */
  accepted: Received[];
  /** May answer later: a promise of the answer. */
  answer: (r: Received, n: number) => Answer | Promise<Answer>;
  inFlight: number;
  maxInFlight: number;
  /** TCP connections the receiver has accepted. */
  connections: number;
  close(): Promise<void>;
}

export async function startReceiver(answer?: Receiver['answer'], at?: HeldPort): Promise<Receiver> {
  const sockets = new Set<import('node:net').Socket>();
  const r: Receiver = {
    url: '',
    received: [],
    accepted: [],
    answer: answer ?? (() => 204),
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    r.inFlight += 1;
    r.maxInFlight = Math.max(r.maxInFlight, r.inFlight);
    res.on('close', () => (r.inFlight -= 1));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Received['event'];
      try {
        event = JSON.parse(body) as Received['event'];
      } catch {
        event = { id: '', type: '', subject: '', data: {} };
      }
      const rec: Received = { headers: req.headers, body, event, at: Date.now() };
      r.received.push(rec);
      const a = await r.answer(rec, r.received.length);
      if (a === 'hang') return;
      if (a === 'drop') return req.socket.destroy();
      const o = typeof a === 'number' ? { status: a } : a;
      if (o.status >= 200 && o.status < 300) r.accepted.push(rec);
      res.writeHead(o.status, o.headers ?? {});
      res.end(o.body ?? '');
    });
  });
  server.on('connection', (s) => {
    r.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  if (at) await at.listen(server);
  else await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const { address, port } = server.address() as AddressInfo;
  r.url = `http://${address}:${port}/hook`;
  return r;
}
