import net from 'node:net';
import { Body, Controller, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { kitApp } from '../test/support/kit-app';

@Controller('echo')
class EchoController {
  @Post()
  echo(@Body() body: Record<string, unknown>) {
    return { keys: Object.keys(body) };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

/**
 * A body past the limit gets its 413 read by the client that is still sending it (lingering close): the service
 * reads and drops the rest, bounded, instead of closing the socket under the client's writes.
 */
describe('a request body past the limit: the 413 reaches a client that is still sending', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await kitApp('drain-test', EchoModule);
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
  });

  /**
   * A raw HTTP/1.1 client that sends `size` bytes of body in 64 KiB writes, each after the previous one was taken,
   * with a pause now and then (a client on a slower link), and resolves with what came back and any write error.
   */
  function slowUpload(size: number, headers: Record<string, string>): Promise<{ response: string; writeError?: string; closedAt: 'after' | 'during' }> {
    return new Promise((resolve) => {
      // Half-open allowed: a client that goes on sending after the server has shut its side (as a client busy
      // writing does before it reads), so the test sees whether the server still reads, or resets.
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let response = '';
      let writeError: string | undefined;
      let sent = 0;
      let finished = false;
      socket.on('data', (d) => (response += d.toString('latin1')));
      socket.on('error', (err: NodeJS.ErrnoException) => (writeError ??= err.code ?? err.message));
      socket.on('close', () => resolve({ response, writeError, closedAt: finished ? 'after' : 'during' }));
      const head = [
        `POST /echo HTTP/1.1`,
        `host: 127.0.0.1:${port}`,
        'content-type: application/json',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const next = () => {
        if (socket.destroyed) return;
        if (sent >= size) {
          finished = true;
          // The whole body is sent: read the answer, then close our side.
          setTimeout(() => socket.end(), 200);
          return;
        }
        const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += part.length;
        socket.write(part, (err) => {
          if (err) return;
          if (sent % (1024 * 1024) === 0) setTimeout(next, 20);
          else setImmediate(next);
        });
      };
      next();
    });
  }

  it('a declared length past the limit: 413 read after the whole body was sent, no EPIPE, then the connection closes', async () => {
    const size = 6 * 1024 * 1024;
    const r = await slowUpload(size, { 'content-length': String(size) });
    expect(r.writeError).toBeUndefined();
    expect(r.closedAt).toBe('after');
    expect(r.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.response).toContain('"message":"Request body is too large"');
    expect(r.response.toLowerCase()).toContain('connection: close');
  });

  it('a chunked body past the limit: the same', async () => {
    // Chunked framing: one chunk per write is simpler to send as a declared length; here a single big chunk.
    const size = 4 * 1024 * 1024;
    const r = await new Promise<{ response: string; writeError?: string }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let response = '';
      let writeError: string | undefined;
      socket.on('data', (d) => (response += d.toString('latin1')));
      socket.on('error', (err: NodeJS.ErrnoException) => (writeError ??= err.code ?? err.message));
      socket.on('close', () => resolve({ response, writeError }));
      socket.write(`POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
      let sent = 0;
      const piece = Buffer.alloc(64 * 1024, 0x61);
      const next = () => {
        if (socket.destroyed) return;
        if (sent >= size) {
          socket.write('0\r\n\r\n', () => setTimeout(() => socket.end(), 200));
          return;
        }
        sent += piece.length;
        socket.write(`${piece.length.toString(16)}\r\n`);
        socket.write(piece);
        socket.write('\r\n', (err) => (err ? undefined : setImmediate(next)));
      };
      next();
    });
    expect(r.writeError).toBeUndefined();
    expect(r.response).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('Node fetch, as the SDK uses it: the 413 with its JSON body, and the next request works', async () => {
    const url = `http://127.0.0.1:${port}/echo`;
    const big = JSON.stringify({ a: 'x'.repeat(8 * 1024 * 1024) });
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ message: 'Request body is too large' });
    }
    const ok = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"b":1}' });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ keys: ['b'] });
  });

  it('a body declared past the drain bound (64 MiB): Connection: close at once, not a wait for it', async () => {
    const res = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let response = '';
      socket.on('data', (d) => (response += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(response));
      socket.write(`POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${200 * 1024 * 1024}\r\n\r\n{"a":`);
    });
    expect(res).toMatch(/^HTTP\/1\.1 413 /);
    expect(res.toLowerCase()).toContain('connection: close');
  });
});
