import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { HeldPort } from '@dtp/testing';

/** What tests that take a server down and bring it back at the same URL rely on (libs/testing held-port.ts). */
describe('HeldPort', () => {
  const connect = (host: string, port: number) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, host);
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
  /** Another process's attempt to listen on `port` at `host`: its error code, or 'listening'. */
  const listenElsewhere = (host: string, port: number) =>
    spawnSync(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').createServer(); s.on('error', (e) => console.log(e.code)); s.listen(${port}, '${host}', () => { console.log('listening'); s.close(); });`,
      ],
      { encoding: 'utf8' },
    ).stdout.trim();
  const listen = async (held: HeldPort) => {
    const server = net.createServer((s) => s.end());
    await held.listen(server);
    return server;
  };
  const close = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

  it('refuses connections while nothing listens, accepts them while a server does, again after a restart', async () => {
    const held = await HeldPort.hold();
    try {
      expect(await connect(held.host, held.port)).toBe('ECONNREFUSED');
      const server = await listen(held);
      expect(await connect(held.host, held.port)).toBe('connected');
      await close(server);
      expect(await connect(held.host, held.port)).toBe('ECONNREFUSED');
      const again = await listen(held);
      expect(await connect(held.host, held.port)).toBe('connected');
      await close(again);
    } finally {
      await held.release();
    }
  });

  it('keeps the port from every other process, with or without a server on it', async () => {
    const held = await HeldPort.hold();
    for (const host of ['0.0.0.0', '127.0.0.1']) expect({ host, got: listenElsewhere(host, held.port) }).toEqual({ host, got: 'EADDRINUSE' });
    const server = await listen(held);
    expect(listenElsewhere(held.host, held.port)).toBe('EADDRINUSE');
    await close(server);
    expect(listenElsewhere('127.0.0.1', held.port)).toBe('EADDRINUSE');
    await held.release();
  });
});
