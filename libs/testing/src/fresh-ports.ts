import net from 'node:net';

/**
 * What a service, or the embedded PostgreSQL, says when the port it was given is taken: Node's `listen EADDRINUSE:
 * address already in use`, PostgreSQL's `could not bind ... Address already in use`, embedded-pg's `port N is already
 * in use`.
 */
export const PORT_TAKEN = /EADDRINUSE|already in use/i;

/** A port nothing listens on at this moment (the kernel's pick); any process may take it the moment after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A free port for each of `keys` (`pick`: freePort), no two the same. */
export async function freshPorts<K extends string>(keys: readonly K[], pick: () => Promise<number> = freePort): Promise<Record<K, number>> {
  const ports = {} as Record<K, number>;
  const taken = new Set<number>();
  for (const k of keys) {
    let p = await pick();
    while (taken.has(p)) p = await pick();
    taken.add(p);
    ports[k] = p;
  }
  return ports;
}

export interface FreshPortsOptions {
  /** Ports for the first try (a restart on the ports a stack had before); fresh ones after a port was taken. */
  first?: Record<string, number>;
  /** Tries in all (default 3). */
  tries?: number;
  /** Where each port comes from (default freePort; tests of this helper hand it a taken one). */
  pick?: () => Promise<number>;
}

/**
 * Starts programs that bind ports the caller chose for them (`npm start`, `npm run start:kafka`, the production build's
 * services, the containers on the host network: every address the services give each other follows their ports, so
 * the test cannot ask for port 0 and read the real one back, and they bind every address, so HeldPort cannot keep
 * the port for them).
 * Between the pick and the program's bind, another process (a test's server, the kernel choosing some connection's
 * local port) can take a port: when `start` fails saying so (PORT_TAKEN in its error, which should carry the
 * program's output), it runs again with fresh ports, up to `tries` in all. Any other failure is the caller's.
 * `start` stops what it started before it throws. The ports of one try are distinct.
 */
export async function onFreshPorts<K extends string, T>(
  keys: readonly K[],
  start: (ports: Record<K, number>) => Promise<T>,
  opts: FreshPortsOptions = {},
): Promise<{ ports: Record<K, number>; started: T }> {
  const tries = opts.tries ?? 3;
  for (let attempt = 1; ; attempt++) {
    const ports = attempt === 1 && opts.first ? ({ ...opts.first } as Record<K, number>) : await freshPorts(keys, opts.pick);
    try {
      return { ports, started: await start(ports) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (attempt >= tries || !PORT_TAKEN.test(message)) throw err;
      process.stderr.write(`[fresh ports] try ${attempt} of ${tries}: a port of ${JSON.stringify(ports)} was taken meanwhile; again on fresh ports\n`);
    }
  }
}

/**
 * Waits until `output()` includes `ready`. Fails at once, with the output, when the program exits first or says a
 * port was taken (a runner that restarts a failed service would otherwise go on trying), and after `ms`.
 */
export async function untilReady(output: () => string, exited: Promise<unknown>, ready: string, ms: number): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const until = Date.now() + ms;
  for (;;) {
    const out = output();
    if (out.includes(ready)) return;
    const why = gone ? 'the program exited' : PORT_TAKEN.test(out) ? 'a port was taken' : Date.now() > until ? `timed out after ${ms} ms` : null;
    if (why) throw new Error(`not ready (${why}); output:\n${out.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
