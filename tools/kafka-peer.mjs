// A real Kafka wire-protocol peer for tests, benchmarks and `npm run start:kafka`: the librdkafka mock cluster
// started by Debian's `kcat` (DESIGN.md "Running it", TOOLCHAIN.md "Kafka in tests"). It auto-creates topics
// (4 partitions), supports consumer groups, refuses the admin CreateTopics call and the idempotent producer.
//
//   import { startKafkaPeer } from './kafka-peer.mjs';  const peer = await startKafkaPeer();  peer.brokers; await peer.stop();
//   node tools/kafka-peer.mjs            # runs one until Ctrl-C, printing KAFKA_BROKERS=127.0.0.1:PORT
//
// kcat is installed with apt-get when absent (as root; `apt-get update` first when the plain install fails).
import { spawn, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const say = (log, line) => (log ?? ((l) => process.stderr.write(`${l}\n`)))(`[kafka-peer] ${line}`);

function hasKcat() {
  const r = spawnSync('kcat', ['-V'], { stdio: 'ignore' });
  return r.status === 0;
}

function run(log, cmd, args) {
  say(log, `running: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0)
    say(
      log,
      `${cmd} failed (exit ${r.status}): ${String(r.stderr ?? '')
        .trim()
        .split('\n')
        .slice(-3)
        .join(' | ')}`,
    );
  return r.status === 0;
}

/** Makes sure `kcat` is on PATH, installing Debian's package when it is not. Throws when that is impossible. */
export function ensureKcat(log) {
  if (hasKcat()) return;
  say(log, 'kcat not found: installing the Debian package (apt-get install -y kcat)');
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('kcat is not installed and this is not root: run `apt-get install -y kcat` (Kafka tests need it)');
  }
  // Other test processes may be installing their own packages (chromium, the deploy checks' tools) at the same
  // time: wait for dpkg's lock instead of failing on it.
  const apt = (...args) => run(log, 'apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args]);
  if (!apt('install', '-y', 'kcat')) {
    apt('update');
    if (!apt('install', '-y', 'kcat')) {
      throw new Error('could not install kcat with apt-get: Kafka tests cannot run (install it: apt-get install -y kcat)');
    }
  }
  if (!hasKcat()) throw new Error('kcat was installed but is not on PATH');
  say(log, 'kcat installed');
}

/**
 * Starts one mock cluster (one broker) and resolves when it listens.
 * @param {{log?: (line: string) => void, timeoutMs?: number}} [opts]
 * @returns {Promise<{brokers: string, pid: number, stop: () => Promise<void>}>}
 */
export async function startKafkaPeer(opts = {}) {
  ensureKcat(opts.log);
  const child = spawn('kcat', ['-X', 'test.mock.num.brokers=1', '-d', 'mock', '-C', '-t', 'keepalive', '-b', 'x'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: a Ctrl-C meant for the runner must not stop the peer before the services that still
    // publish to it have stopped (acknowledged events live only in its memory). The owner stops it last; if the
    // owner exits without doing so, the exit hook below does.
    detached: true,
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  const brokers = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kcat mock cluster did not report bootstrap.servers within ${opts.timeoutMs ?? 15000} ms: ${buffer.slice(-500)}`));
    }, opts.timeoutMs ?? 15000);
    const onData = (chunk) => {
      buffer += chunk.toString();
      const m = /bootstrap\.servers=([0-9.:,]+)/.exec(buffer);
      if (m) {
        clearTimeout(timer);
        // Keep draining stderr (mock debug output) so the pipe never fills up, but drop it.
        buffer = '';
        child.stderr.off('data', onData);
        child.stderr.on('data', () => {});
        resolve(m[1]);
      } else if (buffer.length > 100_000) {
        buffer = buffer.slice(-10_000);
      }
    };
    child.stderr.on('data', onData);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`kcat exited early (code ${code}, signal ${signal}): ${buffer.slice(-500)}`));
    });
  });
  say(opts.log, `mock Kafka cluster up at ${brokers} (kcat pid ${child.pid})`);
  let stopped;
  const exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    brokers,
    pid: child.pid,
    // Resolves when the peer's process ends, for whatever reason (its owner's stop included).
    exited,
    stop: () =>
      (stopped ??= new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      })),
  };
}

// CLI: run a peer until interrupted.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  startKafkaPeer().then(
    (peer) => {
      process.stdout.write(`KAFKA_BROKERS=${peer.brokers}\n`);
      const stop = () => peer.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
