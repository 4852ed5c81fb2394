import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sendWebhook } from '../src/webhooks/webhook-sender';
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
  it("keeps a receiver's connection for its next deliveries", async () => {
    const r = await startReceiver();
    try {
      for (let i = 0; i < 5; i++)
        expect(await sendWebhook(r.url, { 'webhook-id': `x${i}` }, `{"n":${i}}`, { timeoutMs: 5000, allowPrivate: true })).toEqual({
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
    try {
      for (let i = 0; i < 5; i++)
        expect(await sendWebhook(url, {}, `{"n":${i}}`, { timeoutMs: 5000, allowPrivate: true, resolve })).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(1);
      expect(lookups).toBe(1);
      expect(await sendWebhook(url, {}, '{"n":5}', { timeoutMs: 5000, allowPrivate: true, resolve })).toEqual({ status: 204, error: null });
      expect(r.connections).toBe(2);
      expect(lookups).toBe(2);
    } finally {
      await r.close();
    }
  });

  it('sends again at once, on a new connection, when the receiver has dropped the kept one', async () => {
    const s = await resettingServer();
    try {
      expect(await sendWebhook(s.url, {}, '{"n":1}', { timeoutMs: 5000, allowPrivate: true })).toEqual({ status: 204, error: null });
      // the kept connection is reset when the second request arrives on it: the sender makes a new one
      expect(await sendWebhook(s.url, {}, '{"n":2}', { timeoutMs: 5000, allowPrivate: true })).toEqual({ status: 204, error: null });
      expect(s.connections()).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('keeps an https connection made with a CA, and never lends it to a request without that CA', async () => {
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
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const ca = readFileSync(`${dir}/cert.pem`, 'utf8');
    let handshakes = 0;
    const server = https.createServer({ key: readFileSync(`${dir}/key.pem`), cert: ca }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.on('secureConnection', () => (handshakes += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    try {
      for (let i = 0; i < 2; i++) expect(await sendWebhook(url, {}, '{}', { timeoutMs: 5000, allowPrivate: true, ca })).toEqual({ status: 204, error: null });
      expect(handshakes).toBe(1);
      expect(await sendWebhook(url, {}, '{}', { timeoutMs: 5000, allowPrivate: true })).toEqual({
        status: null,
        error: 'connection failed: DEPTH_ZERO_SELF_SIGNED_CERT',
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('does not keep a connection whose answer it stopped reading (a body over 64 KiB)', async () => {
    const r = await startReceiver(() => ({ status: 500, body: 'z'.repeat(1024 * 1024) }));
    try {
      for (let i = 0; i < 2; i++) expect((await sendWebhook(r.url, {}, '{}', { timeoutMs: 5000, allowPrivate: true })).status).toBe(500);
      expect(r.connections).toBe(2);
    } finally {
      await r.close();
    }
  });
});
