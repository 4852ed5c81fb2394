/**
 * What the benchmarks share: service replicas as processes (scale, memory), auth and platform in the benchmark's own
 * process (deletion, dtp-import, webhooks), onboarding a participant, a few HTTP and SQL helpers, autocannon across
 * several replicas.
 */
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';

export const ISSUER = 'http://auth.bench';
export const AUDIENCES = { platform: 'http://platform.bench', search: 'http://search.bench/v1', gis: 'http://gis.bench' };
// Random per run: the memory benchmark starts auth in production form (the image's NODE_ENV), which refuses any
// admin token published in the repository (apps/auth/src/config.ts PUBLISHED_ADMIN_TOKENS).
export const ADMIN = `bench-${randomBytes(24).toString('base64url')}`;
const ROOT = path.join(__dirname, '..');

export const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * CPU time a process has used so far (user + system), in seconds (Linux /proc: fields 14 and 15 of
 * /proc/<pid>/stat, in clock ticks of USER_HZ, which is 100 on Linux whatever the kernel's own tick).
 */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name, which is in parentheses and may hold spaces: field 3 onwards.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU time (s) PostgreSQL has used: every live postgres process's own time, plus, for the postmaster (the one whose
 * parent is not postgres), the time of the children it has reaped (cutime, cstime): backends come and go with
 * connections, so their time would otherwise be lost when they exit.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const seconds of postgresCpuByDatabase().values()) total += seconds;
  return total;
}

/**
 * CPU time (s) PostgreSQL has used so far, by database: a backend's time under its database, read from its process
 * title (`postgres: <user> <database> <host>(<port>) <state>`, PostgreSQL's default `update_process_title`), and a
 * running autovacuum worker's under the database it works in; the time of its own processes (WAL writer,
 * checkpointer, background writer, I/O workers), and of the children the postmaster has reaped, under ''. A backend
 * that ends between two readings takes its time with it: compare readings over spans where the connections stay
 * open (a pool's).
 */
export function postgresCpuByDatabase(): Map<string, number> {
  const out = new Map<string, number>();
  const add = (db: string, seconds: number) => out.set(db, (out.get(db) ?? 0) + seconds);
  const procs: { pid: string; ppid: string; own: number; reaped: number; db: string }[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!/\((postgres|postmaster)\)/.test(stat)) continue;
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      // From field 3 (state) on: ppid is field 4, utime/stime 14/15, cutime/cstime 16/17.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const db = (/^postgres: autovacuum worker (\S+)/.exec(title) ?? /^postgres: \S+ (\S+) [^ ]*\(\d+\)/.exec(title))?.[1] ?? '';
      procs.push({ pid, ppid: f[1]!, own: (Number(f[11]) + Number(f[12])) / 100, reaped: (Number(f[13]) + Number(f[14])) / 100, db });
    } catch {
      // the process ended
    }
  }
  const pids = new Set(procs.map((p) => p.pid));
  for (const p of procs) add(p.db, p.own + (pids.has(p.ppid) ? 0 : p.reaped));
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function q<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** One service replica as its own process, ready when /health/ready says so and its consumers have started. */
export class Replica {
  child?: ChildProcess;
  readonly url: string;
  private log: string[] = [];
  constructor(
    readonly name: string,
    readonly app: 'auth' | 'platform' | 'search',
    readonly port: number,
    readonly env: Record<string, string>,
    /** How to run it: the TypeScript sources through the register hook (default), or a built file under `dist`. */
    readonly command: string[] = ['-r', './tools/register.js', `apps/${app}/src/main.ts`],
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /**
   * Memory of the process now, in MB (10^6 bytes; Linux /proc), from one read of its status: `rss`, the resident set,
   * and `private`, the part of it that is the process's own (anonymous memory: V8's heap, malloc, stacks); the rest is
   * file-backed, mostly the node binary's pages, which processes of the same binary (and containers of the same image
   * layer, on one node) share in the page cache.
   */
  memoryMB(): { rss: number; private: number } {
    const status = readFileSync(`/proc/${this.child!.pid}/status`, 'utf8');
    const mb = (re: RegExp) => (Number(re.exec(status)![1]) * 1024) / 1e6;
    return { rss: mb(/^VmRSS:\s+(\d+) kB/m), private: mb(/^RssAnon:\s+(\d+) kB/m) };
  }

  /** CPU time the process has used so far (user + system), in seconds. */
  cpuSeconds(): number {
    return processCpuSeconds(this.child!.pid!);
  }

  async start(): Promise<void> {
    // BENCH_CPU_PROF_DIR=dir: a V8 CPU profile of the replica's whole life (bench/cpuprofile-summary.mjs reads it).
    const prof = process.env.BENCH_CPU_PROF_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF_DIR)}`, `--cpu-prof-name=${this.name}-${process.pid}-${Date.now()}.cpuprofile`]
      : [];
    const child = spawn(process.execPath, [...prof, ...this.command], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (b: Buffer) => {
      this.log.push(b.toString());
      if (this.log.length > 100) this.log.splice(0, this.log.length - 100);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const until = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited ${child.exitCode}:\n${this.recentOutput(3000)}`);
      try {
        const res = await fetch(`${this.url}/health/ready`);
        const body = res.status === 200 ? ((await res.json()) as { checks?: Record<string, string> }) : undefined;
        if (body && !body.checks?.consumers) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) throw new Error(`${this.name} not ready:\n${this.recentOutput(3000)}`);
      await sleep(200);
    }
  }

  /** The end of what the process wrote (stdout and stderr), and how it ended if it has: for a benchmark's error. */
  logTail(chars = 4000): string {
    const child = this.child;
    const ended = child && (child.exitCode !== null || child.signalCode !== null) ? ` (exited: ${child.exitCode ?? child.signalCode})` : '';
    return `--- ${this.name}${ended}\n${this.recentOutput(chars)}`;
  }

  /** The last `chars` characters the process wrote (stdout and stderr, of the last 100 chunks kept). */
  private recentOutput(chars: number): string {
    return this.log.join('').slice(-chars);
  }

  async metric(name: string, labelMatch = ''): Promise<number | undefined> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(name) && (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(labelMatch));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The environment a service process of a multi-process benchmark starts with: its database, auth at `authPort`
 * (issuer, JWKS, admin token, the audiences), the blob directory, the Kafka peer under a prefix of its own (`tag`)
 * for topics and groups, no drain on shutdown. Benchmarks add their own settings on top.
 */
export function stackEnv(opts: { db: string; authPort: number; blobDir: string; brokers: string; tag: string }): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: opts.db,
    MIGRATE_ON_START: 'true',
    AUTH_ISSUER: ISSUER,
    AUTH_JWKS_URL: `http://127.0.0.1:${opts.authPort}/.well-known/jwks.json`,
    AUTH_ADMIN_TOKEN: ADMIN,
    PLATFORM_AUDIENCE: AUDIENCES.platform,
    SEARCH_AUDIENCE: AUDIENCES.search,
    GIS_AUDIENCE: AUDIENCES.gis,
    BLOB_STORE_DIR: opts.blobDir,
    KAFKA_BROKERS: opts.brokers,
    KAFKA_GROUP_PREFIX: `${opts.tag}.`,
    KAFKA_TOPIC_PREFIX: `${opts.tag}.`,
    SHUTDOWN_DRAIN_MS: '0',
  };
}

export async function postJson<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A participant onboarded through auth's admin API (a producer with a mine as its provenance): its id and client. */
export async function onboard(authUrl: string, name: string, role = 'producer'): Promise<{ participant_id: string; client_id: string; client_secret: string }> {
  return postJson(
    `${authUrl}/admin/participants`,
    { name, role, ...(role === 'producer' ? { provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } } : {}) },
    { authorization: `Bearer ${ADMIN}` },
  );
}

/** An access token for `audience`, by the client credentials grant. */
export async function clientToken(authUrl: string, client: { client_id: string; client_secret: string }, audience: string): Promise<string> {
  const t = await postJson<{ access_token: string }>(`${authUrl}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: client.client_id,
    client_secret: client.client_secret,
    audience,
  });
  return t.access_token;
}

/** A new participant of `role` and a token of it for `audience`. */
export async function token(authUrl: string, role: string, audience: string, name = `bench ${role}`): Promise<string> {
  return clientToken(authUrl, await onboard(authUrl, name, role), audience);
}

export const roughBody = (participantId: string) => ({
  box_id: 'SCALE-BOX',
  participant_id: participantId,
  participant_timestamp: '2024-03-01T10:00:00Z',
  rough: { carats: 1.25 },
});

/** autocannon against every url at once, `connections` split between them; throughput and p99 of all. */
export async function loadAll(
  urls: string[],
  connections: number,
  seconds: number,
  request: (url: string) => autocannon.Options['requests'],
): Promise<{ rps: number; p99: number; bad: number }> {
  const results = await Promise.all(
    urls.map(
      (url) =>
        new Promise<autocannon.Result>((resolve, reject) =>
          autocannon({ url, connections: Math.max(1, Math.floor(connections / urls.length)), duration: seconds, requests: request(url) }, (err, r) =>
            err ? reject(err) : resolve(r),
          ),
        ),
    ),
  );
  return {
    rps: results.reduce((s, r) => s + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    bad: results.reduce((s, r) => s + r.non2xx + r.errors, 0),
  };
}

/** Auth and platform in the benchmark's own process, as inProcessStack starts them. */
export interface InProcessStack {
  authUrl: string;
  platformUrl: string;
  /** Platform's database. */
  platformDb: string;
  /** The PostgreSQL server (no database). */
  pgUrl: string;
  /** Auth's key set, for a platform replica started beside this one. */
  jwksUrl: string;
  blobDir: string;
  /** A producer onboarded, with a token for platform, once platform has its onboarding event (the registration fast path). */
  producer(name: string): Promise<{ id: string; auth: Record<string, string> }>;
  /** Stops the services and PostgreSQL and removes their data. */
  close(): Promise<void>;
}

/**
 * An embedded PostgreSQL (durable settings: fsync on, synchronous commit; a throw-away data dir), then auth and
 * platform in this process on the in-process event bus (the outbox relay running), as `npm start` runs them.
 * `authEnv` and `platformEnv` add settings (rate limits, webhook settings); `databases` are made besides
 * `bench_auth` and `bench_platform` (an anchor's, migrated by the caller).
 */
export async function inProcessStack(
  name: string,
  opts: { authEnv?: Record<string, string>; platformEnv?: Record<string, string>; databases?: string[] } = {},
): Promise<InProcessStack> {
  const { startEmbeddedPostgres } = await import('../tools/embedded-pg.mjs');
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-${name}-${tag}`;
  const blobDir = `/tmp/dtp-bench-${name}-blobs-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const logger = pino({ level: 'warn' });
  const transport = new InProcessTransport((err) => logger.error({ err }, 'event handler failed'));
  const services: RunningService[] = [];
  const close = async () => {
    for (const s of services.reverse()) await s.close().catch(() => undefined);
    await transport.close();
    await pg.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
  };
  try {
    for (const db of ['bench_auth', 'bench_platform', ...(opts.databases ?? [])]) await ensureDatabase(withDatabase(pg.url, db));
    const common = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', AUTH_ISSUER: ISSUER, PLATFORM_AUDIENCE: AUDIENCES.platform };
    const authConfig = loadConfig('auth', authService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(pg.url, 'bench_auth'),
      AUTH_ADMIN_TOKEN: ADMIN,
      ...opts.authEnv,
    });
    const platformDb = withDatabase(pg.url, 'bench_platform');
    const platformConfig = loadConfig('platform', platformService.configClass, {
      ...common,
      DATABASE_URL: platformDb,
      AUTH_JWKS_URL: 'http://127.0.0.1:9/unused',
      BLOB_STORE_DIR: blobDir,
      ...opts.platformEnv,
    });
    await authService.migrate(authConfig, logger);
    await platformService.migrate(platformConfig, logger);
    const auth = await authService.start(authConfig, { transport }, logger);
    services.push(auth);
    const authUrl = auth.url.replace('localhost', '127.0.0.1');
    const jwksUrl = `${authUrl}/.well-known/jwks.json`;
    platformConfig.AUTH_JWKS_URL = jwksUrl;
    const platform = await platformService.start(platformConfig, { transport }, logger);
    services.push(platform);
    const producer = async (who: string) => {
      const p = await onboard(authUrl, who);
      const access = await clientToken(authUrl, p, AUDIENCES.platform);
      for (let i = 0; (await q(platformDb, 'SELECT 1 FROM participants WHERE participant_id = $1', [p.participant_id])).length === 0; i++) {
        if (i > 200) throw new Error('platform never received the onboarding event');
        await sleep(50);
      }
      return { id: p.participant_id, auth: { authorization: `Bearer ${access}` } };
    };
    return { authUrl, platformUrl: platform.url.replace('localhost', '127.0.0.1'), platformDb, pgUrl: pg.url, jwksUrl, blobDir, producer, close };
  } catch (err) {
    await close();
    throw err;
  }
}
