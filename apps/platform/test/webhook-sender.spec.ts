import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SenderOptions, WebhookSender } from '../src/webhooks/webhook-sender';
import { startReceiver } from './webhook-receiver';

/** A raw HTTP/1.1 server: answers 204 keeping the connection, and resets a connection on its second request. */
async function resettingServer(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // each request here is small: its head and body arrive before the next one is sent
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = '';
      requests += 1;
      if (requests === 2) socket.resetAndDestroy();
      else socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('webhook sender connections', () => {
  const senders: WebhookSender[] = [];
  /** A sender, closed after the test. */
  const sender = (opts: SenderOptions) => {
    const s = new WebhookSender(opts);
    senders.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(senders.splice(0).map((s) => s.close()));
  });

  it("keeps a receiver's connection for its next deliveries", async () => {
    const r = await startReceiver();
    const s = sender({ timeoutMs: 5000, allowPrivate: true });
    try {
      for (let i = 0; i < 5; i++)
        expect(await s.send(r.url, { 'webhook-id': `x${i}` }, `{"n":${i}}`)).toEqual({
          status: 204,
          error: null,
        });
      expect(r.received.map((x) => x.body)).toEqual([0, 1, 2, 3, 4].map((i) => `{"n":${i}}`));
      expect(r.connections).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('looks a named host up, and checks it, once per connection it opens, not once per delivery', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    // the sixth request is dropped unanswered: the sender sends it again at once, on a new connection
    const r = await startReceiver((_rec, n) => (n === 6 ? 'drop' : 204));
    const url = `http://hook.example:${new URL(r.url).port}/hook`;
    const s = sender({ timeoutMs: 5000, allowPrivate: true, resolve });
    try {
      for (let i = 0; i < 5; i++) expect(await s.send(url, {}, `{"n":${i}}`)).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(1);
      expect(lookups).toBe(1);
      expect(await s.send(url, {}, '{"n":5}')).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(2);
      expect(lookups).toBe(2);
    } finally {
      await r.close();
    }
  });

  it('sends again at once, on a new connection, when the receiver has dropped the kept one', async () => {
    const server = await resettingServer();
    const s = sender({ timeoutMs: 5000, allowPrivate: true });
    try {
      expect(await s.send(server.url, {}, '{"n":1}')).toEqual({ status: 204, error: null });
      // the kept connection is reset when the second request arrives on it: the sender makes a new one
      expect(await s.send(server.url, {}, '{"n":2}')).toEqual({ status: 204, error: null });
      expect(server.connections()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('keeps an https connection made with a CA, checks the certificate against the name; a sender without that CA refuses it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtp-webhook-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${dir}/key.pem`,
        '-out',
        `${dir}/cert.pem`,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:hook.example',
      ],
      { stdio: 'ignore' },
    );
    const ca = readFileSync(`${dir}/cert.pem`, 'utf8');
    let handshakes = 0;
    const names: (string | false)[] = [];
    const server = https.createServer({ key: readFileSync(`${dir}/key.pem`), cert: ca }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    // the name the client sent (SNI): a server-side TLSSocket's `servername`, which @types/node does not declare
    server.on('secureConnection', (socket: import('node:tls').TLSSocket & { servername?: string | false }) => {
      handshakes += 1;
      names.push(socket.servername ?? false);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    try {
      const trusting = sender({ timeoutMs: 5000, allowPrivate: true, ca });
      for (let i = 0; i < 2; i++) expect(await trusting.send(url, {}, '{}')).toEqual({ status: 204, error: null });
      expect(handshakes).toBe(1);
      expect(await sender({ timeoutMs: 5000, allowPrivate: true }).send(url, {}, '{}')).toEqual({
        status: null,
        error: 'connection failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)',
      });
      // a named host: connected to the address the look-up checked, the name sent as SNI and checked against the
      // certificate (hook.example is in it, other.example is not)
      const port = new URL(url).port;
      const named = sender({ timeoutMs: 5000, allowPrivate: true, ca, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
      expect(await named.send(`https://hook.example:${port}/hook`, {}, '{}')).toEqual({ status: 204, error: null });
      expect(names.at(-1)).toBe('hook.example');
      expect(await named.send(`https://other.example:${port}/hook`, {}, '{}')).toEqual({
        status: null,
        error: expect.stringMatching(
          /^connection failed: Hostname\/IP does not match certificate's altnames: .*other\.example.* \(ERR_TLS_CERT_ALTNAME_INVALID\)$/,
        ),
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gives each named connection (a webhook) its own: one left hanging does not hold up another to the same receiver', async () => {
    let hold = true;
    const r = await startReceiver((rec) => (rec.body === '"slow"' && hold ? 'hang' : 204));
    const s = sender({ timeoutMs: 1000, allowPrivate: true });
    try {
      const slow = s.send(r.url, {}, '"slow"', 'webhook-a');
      while (r.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      // webhook-b's deliveries go while webhook-a's request hangs, on a connection of their own, kept between them
      for (let i = 0; i < 3; i++) expect(await s.send(r.url, {}, `{"n":${i}}`, 'webhook-b')).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(2);
      expect(r.maxInFlight).toBe(2);
      hold = false;
      expect(await slow).toEqual({ status: null, error: 'timed out after 1000 ms' });
    } finally {
      await r.close();
    }
  });

  it('destroys the connection of a request past its time, and sends the next on a new one', async () => {
    const r = await startReceiver((_rec, n) => (n === 1 ? 'hang' : 204));
    const s = sender({ timeoutMs: 300, allowPrivate: true });
    try {
      expect(await s.send(r.url, {}, '{"n":1}')).toEqual({ status: null, error: 'timed out after 300 ms' });
      // the receiver sees its connection closed (the hanging answer's 'close'), not left open
      while (r.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await s.send(r.url, {}, '{"n":2}')).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(2);
    } finally {
      await r.close();
    }
  });

  it('writes in words, for the delivery log, an answer that is not HTTP/1.1, a head over the limit, one cut short, a refused connection', async () => {
    /** A server that answers every connection's first bytes with `answer` and ends it. */
    const answering = async (answer: string) => {
      const server = net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.once('data', () => socket.end(answer));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`, server };
    };
    const cases: [string, { status: number | null; error: string }][] = [
      ['SSH-2.0-OpenSSH_9.6\r\n', { status: null, error: 'invalid response: Response does not match the HTTP/1.1 protocol (Expected HTTP/)' }],
      ['HTTP/1.1 abc OK\r\n\r\n', { status: null, error: 'invalid response: Response does not match the HTTP/1.1 protocol (Invalid response status)' }],
      [
        `HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(http.maxHeaderSize)}\r\n\r\n`,
        { status: null, error: `invalid response: its head is over ${http.maxHeaderSize / 1024} KiB` },
      ],
      [
        'HTTP/1.1 500 Oops\r\nContent-Length: 100\r\n\r\nabc',
        { status: 500, error: 'response error: the receiver closed the connection before the end of its answer' },
      ],
    ];
    const s = sender({ timeoutMs: 5000, allowPrivate: true });
    for (const [answer, outcome] of cases) {
      const { url, server } = await answering(answer);
      try {
        expect(await s.send(url, {}, '{}')).toEqual(outcome);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
    // a port nobody listens on: the port of a server just closed
    const { url, server } = await answering('');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await s.send(url, {}, '{}')).toEqual({ status: null, error: 'connection failed: connection refused (ECONNREFUSED)' });
  });

  it('names a receiver that closes every connection without answering, after sending once more on a new one', async () => {
    const r = await startReceiver(() => 'drop');
    const s = sender({ timeoutMs: 5000, allowPrivate: true });
    try {
      expect(await s.send(r.url, {}, '{}')).toEqual({ status: null, error: 'connection failed: the receiver closed the connection' });
      expect(r.received).toHaveLength(2);
      expect(r.connections).toBe(2);
    } finally {
      await r.close();
    }
  });

  it('closes its kept connections when closed, and sends nothing after', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    const socketClosed = new Promise<void>((resolve) => server.on('connection', (socket) => socket.on('close', () => resolve())));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    const s = new WebhookSender({ timeoutMs: 5000, allowPrivate: true });
    try {
      expect(await s.send(url, {}, '{}')).toEqual({ status: 204, error: null });
      await s.close();
      await socketClosed; // the kept connection (Node's server would keep it 5 s) is closed by the sender now
      expect(await s.send(url, {}, '{}')).toEqual({ status: null, error: 'not sent: the sender is closed' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('does not keep a connection whose answer it stopped reading (a body over 64 KiB)', async () => {
    const r = await startReceiver(() => ({ status: 500, body: 'z'.repeat(1024 * 1024) }));
    try {
      const s = sender({ timeoutMs: 5000, allowPrivate: true });
      for (let i = 0; i < 2; i++) expect((await s.send(r.url, {}, '{}')).status).toBe(500);
      expect(r.connections).toBe(2);
    } finally {
      await r.close();
    }
  });
});
