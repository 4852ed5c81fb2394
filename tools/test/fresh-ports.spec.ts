import { spawn } from 'node:child_process';
import net from 'node:net';
import { freePort, onFreshPorts, untilReady } from '@dtp/testing';

/**
 * A child process that listens on `port` (127.0.0.1) and then says `listening now`, or fails as Node does when the port
 * is taken (Node's error quotes the source line, so the line it prints is built, not written in it).
 */
function listener(port: number) {
  const child = spawn(
    process.execPath,
    ['-e', `require('node:net').createServer().listen(${port}, '127.0.0.1', () => console.log(['listening', 'now'].join(' ')))`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

describe('onFreshPorts (tools/test/support/fresh-ports.ts)', () => {
  it('starts the program again on fresh ports when a port it was given was taken before it could bind it', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const taken = (holder.address() as net.AddressInfo).port;
    const candidates = [taken];
    const tried: number[] = [];
    const started: ReturnType<typeof listener>[] = [];
    try {
      const { ports } = await onFreshPorts(
        ['a'],
        async ({ a }) => {
          tried.push(a);
          const proc = listener(a);
          started.push(proc);
          await untilReady(proc.output, proc.exited, 'listening now', 20_000);
          return proc;
        },
        { pick: async () => candidates.shift() ?? freePort() },
      );
      expect(tried).toHaveLength(2);
      expect(tried[0]).toBe(taken);
      expect(ports.a).toBe(tried[1]);
      expect(ports.a).not.toBe(taken);
      expect(started[0].output()).toMatch(/EADDRINUSE/);
      expect(await connects(ports.a)).toBe(true);
    } finally {
      for (const p of started) p.child.kill('SIGKILL');
      await new Promise((r) => holder.close(r));
    }
  });

  it('passes any other failure up at once, and a taken port after the last try', async () => {
    let calls = 0;
    await expect(
      onFreshPorts(['a', 'b'], async () => {
        calls += 1;
        throw new Error('invalid configuration: AUTH_ADMIN_TOKEN');
      }),
    ).rejects.toThrow(/AUTH_ADMIN_TOKEN/);
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      onFreshPorts(
        ['a'],
        async () => {
          calls += 1;
          throw new Error('listen EADDRINUSE: address already in use');
        },
        { tries: 2 },
      ),
    ).rejects.toThrow(/EADDRINUSE/);
    expect(calls).toBe(2);
  });

  it('asks for the ports given first, then fresh ones, each try with distinct ports', async () => {
    const seen: Record<string, number>[] = [];
    const picks = [5001, 5001, 5002, 5003];
    await onFreshPorts(
      ['a', 'b'],
      async (ports) => {
        seen.push(ports);
        if (seen.length === 1) throw new Error('port 4001 is already in use');
      },
      { first: { a: 4001, b: 4002 }, pick: async () => picks.shift()! },
    );
    expect(seen).toEqual([
      { a: 4001, b: 4002 },
      { a: 5001, b: 5002 },
    ]);
  });

  it('untilReady fails at once, with the output, when the program exits before its ready line', async () => {
    const child = spawn(process.execPath, ['-e', `console.error('start failed: bad thing'); process.exit(1)`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const began = Date.now();
    await expect(untilReady(() => out, exited, 'ready', 60_000)).rejects.toThrow(/the program exited[\s\S]*start failed: bad thing/);
    expect(Date.now() - began).toBeLessThan(30_000);
  });
});
