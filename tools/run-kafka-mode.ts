/**
 * `npm run start:kafka`: the four services as SEPARATE processes talking through Kafka (DESIGN.md "Running it").
 *
 * - Kafka: KAFKA_BROKERS (a real broker); without it, a local Kafka wire-protocol peer is started (the kcat mock
 *   cluster, tools/kafka-peer.mjs; installed with apt-get when absent) - good for trying it, not for keeping data.
 * - PostgreSQL: DATABASE_URL names a server (one database per service: dtp_auth, dtp_platform, dtp_search,
 *   dtp_gis, or <NAME>_DATABASE_URL each); without it the embedded PostgreSQL of `npm start` (data in .data/).
 * - Each service: `node -r ./tools/register.js apps/<app>/src/main.ts` with MIGRATE_ON_START=true, its own port
 *   (AUTH_PORT... default 3001-3004). Output is prefixed with the service name. Ctrl-C stops them all (SIGTERM,
 *   graceful), then the peer and PostgreSQL, in that order (each runs in its own process group, so Ctrl-C reaches
 *   only this runner).
 * - A service that dies is started again after a back-off (1 s, doubling to 30 s; back to 1 s once it has run
 *   for a minute), with a log line saying so: the others and the Kafka peer keep running, so acknowledged events
 *   held by the in-memory peer are not lost.
 * - The local peer that dies (its events lived in its memory) is replaced: a new peer, every outbox row still kept
 *   (OUTBOX_RETENTION_HOURS) marked unpublished so that the relays publish it again (consumers skip by revision
 *   what they had applied), and the services restarted on the new peer, each step said on a log line.
 * - DTP_DATA_DIR moves `.data/` (PostgreSQL cluster and blobs), as for `npm start`.
 */
import 'reflect-metadata';
import { runnerArguments, START_KAFKA_HELP } from './runner-args';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from 'pg';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { AddressError, ensurePortsFree, PortsInUse, stackAddresses } from './stack-addresses';

const root = path.join(__dirname, '..');
/** Where the embedded PostgreSQL and the blobs live (DTP_DATA_DIR moves it, as for `npm start`). */
const dataRoot = process.env.DTP_DATA_DIR ? path.resolve(process.env.DTP_DATA_DIR) : path.join(root, '.data');
/** Back-off before restarting a service that died: doubles from the first to the last, reset after a quiet minute. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_AFTER_MS = 60_000;
const names = ['auth', 'platform', 'search', 'gis'] as const;
type Name = (typeof names)[number];

const say = (line: string) => process.stdout.write(`[start:kafka] ${line}\n`);

async function main() {
  const started = Date.now();
  const env = { ...process.env };
  const stops: (() => Promise<void>)[] = [];
  const addresses = stackAddresses(env);
  await ensurePortsFree(addresses.ports);

  let brokers = env.KAFKA_BROKERS;
  /** The local peer (none with KAFKA_BROKERS): replaced when it dies, see replacePeer. */
  let peer: Awaited<ReturnType<(typeof import('./kafka-peer.mjs'))['startKafkaPeer']>> | undefined;
  if (!brokers) {
    const { startKafkaPeer } = await import('./kafka-peer.mjs');
    say('KAFKA_BROKERS is not set: starting a local Kafka wire-protocol peer (kcat mock cluster; data lives in memory)');
    peer = await startKafkaPeer({ log: say });
    brokers = peer.brokers;
    stops.push(() => peer!.stop());
  }

  let serverUrl = env.DATABASE_URL;
  if (!serverUrl) {
    const { startEmbeddedPostgres } = await import('./embedded-pg.mjs');
    const port = Number(env.DTP_PG_PORT ?? 54329);
    const dataDir = path.join(dataRoot, 'postgres');
    const pg = await startEmbeddedPostgres({ dataDir, port, persistent: true });
    serverUrl = pg.url;
    stops.push(pg.stop);
    say(`embedded PostgreSQL on port ${port} (data in ${dataDir})`);
  }

  const port = (n: Name) => addresses.ports[n];
  const dbUrl = (n: Name) => env[`${n.toUpperCase()}_DATABASE_URL`] ?? withDatabase(serverUrl, `dtp_${n}`);
  for (const n of names) await ensureDatabase(dbUrl(n));

  const children = new Map<Name, ChildProcess>();
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping ...');
    for (const timer of restarts.values()) clearTimeout(timer);
    await Promise.all(
      [...children.values()].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
    // Services first, then the Kafka peer and PostgreSQL they were still using.
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    say('stopped cleanly');
    process.exit(code);
  };
  process.on('exit', () => {
    for (const c of children.values()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  const restarts = new Map<Name, NodeJS.Timeout>();
  const backoff = new Map<Name, number>();
  const startService = (n: Name) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, ['-r', './tools/register.js', `apps/${n}/src/main.ts`], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group: Ctrl-C reaches only this runner, which stops each service once, gracefully.
      detached: true,
      env: {
        AUTH_ADMIN_TOKEN: 'dev-admin-token',
        BLOB_STORE_DIR: path.join(dataRoot, 'blobs'),
        ...env,
        ...addresses.envFor(n),
        DATABASE_URL: dbUrl(n),
        KAFKA_BROKERS: brokers,
        MIGRATE_ON_START: 'true',
      },
    });
    children.set(n, child);
    say(`${n} started (pid ${child.pid})`);
    for (const stream of [child.stdout!, child.stderr!]) {
      readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${n.padEnd(8)} | ${line}\n`));
    }
    child.once('exit', (code, signal) => {
      if (stopping) return;
      const ran = Date.now() - startedAt;
      const wait = ran >= RESTART_RESET_AFTER_MS ? RESTART_FIRST_MS : (backoff.get(n) ?? RESTART_FIRST_MS);
      backoff.set(n, Math.min(wait * 2, RESTART_MAX_MS));
      say(
        `${n} exited (${signal ?? `code ${code}`}) after ${(ran / 1000).toFixed(1)} s; restarting it in ${(wait / 1000).toFixed(0)} s (the other services and Kafka keep running)`,
      );
      restarts.set(
        n,
        setTimeout(() => {
          restarts.delete(n);
          if (!stopping) startService(n);
        }, wait),
      );
    });
  };
  for (const n of names) startService(n);

  /**
   * The local peer died: what it held is gone. A new peer; every outbox row still kept marked unpublished, so the
   * relays publish it again and the consumers apply what they had not (and skip, by revision, what they had);
   * then each service restarted on the new peer (its exit handler starts it again with KAFKA_BROKERS updated).
   */
  const replacePeer = async (why: string) => {
    say(
      `the Kafka peer exited (${why}): the events it held in memory are gone. Starting a new peer, republishing every outbox row still kept, and restarting the services on it`,
    );
    const { startKafkaPeer } = await import('./kafka-peer.mjs');
    for (let wait = 1000; !stopping; wait = Math.min(wait * 2, 30_000)) {
      try {
        peer = await startKafkaPeer({ log: say });
        break;
      } catch (err) {
        say(`could not start a new Kafka peer (${err instanceof Error ? err.message : String(err)}); trying again in ${wait / 1000} s`);
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    if (stopping || !peer) return;
    brokers = peer.brokers;
    watchPeer();
    for (const n of ['auth', 'platform', 'gis'] as const) {
      const client = new Client({ connectionString: dbUrl(n) });
      try {
        await client.connect();
        const { rowCount } = await client.query('UPDATE outbox SET published_at = NULL WHERE published_at IS NOT NULL');
        say(`${n}: ${rowCount ?? 0} outbox rows to publish again`);
      } catch (err) {
        say(`${n}: could not mark its outbox for republishing (${err instanceof Error ? err.message : String(err)})`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    for (const [n, child] of children) {
      say(`${n}: restarting on the new Kafka peer (${brokers})`);
      backoff.delete(n);
      child.kill('SIGTERM');
    }
  };
  const watchPeer = () => {
    const current = peer;
    void current?.exited.then(({ code, signal }) => {
      if (stopping || peer !== current) return;
      void replacePeer(signal ?? `code ${code}`);
    });
  };
  watchPeer();

  // Ready when every service answers /health/ready.
  const ready = async (n: Name) => {
    for (;;) {
      if (stopping) return;
      try {
        if ((await fetch(`http://127.0.0.1:${port(n)}/health/ready`)).status === 200) return;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await Promise.all(names.map(ready));
  if (stopping) return;
  process.stdout.write(
    [
      '',
      `  auth      {auth_url}    http://localhost:${port('auth')}    docs: http://localhost:${port('auth')}/docs`,
      `  platform  {base_url}    http://localhost:${port('platform')}    docs: http://localhost:${port('platform')}/docs`,
      `  search    {search_url}  http://localhost:${port('search')}    docs: http://localhost:${port('search')}/docs`,
      `  gis       {gis_url}     http://localhost:${port('gis')}    docs: http://localhost:${port('gis')}/docs`,
      peer ? `  kafka     ${brokers} (local peer, events in memory: if it dies, a new one is started and the outboxes republished)` : `  kafka     ${brokers}`,
      '',
      ...addresses.describe(),
      '',
      `ready: 4 services as separate processes over Kafka in ${((Date.now() - started) / 1000).toFixed(1)} s; Ctrl-C stops`,
      '',
    ].join('\n'),
  );
}

const usage = runnerArguments('npm run start:kafka', START_KAFKA_HELP, process.argv.slice(2));
if (usage !== null) process.exit(usage);
else
  main().catch((err) => {
    if (err instanceof AddressError) {
      process.stderr.write(`start:kafka: invalid configuration:\n${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof PortsInUse) {
      process.stderr.write(`start:kafka: cannot listen:\n${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`start:kafka failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
