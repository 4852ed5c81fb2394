/**
 * Platform benchmark (`npm run bench -- platform`): rough registration throughput and latency.
 *
 * Starts an embedded PostgreSQL (durable settings: fsync on, synchronous commit; throw-away data dir under /tmp),
 * then auth + platform in a CHILD process (LOG_LEVEL=warn, in-process event bus, the outbox relay running), the
 * way the service runs in production: its own process, its own event loop. From this process:
 *  - onboards a producer, gets a token, and drives POST /diamonds/rough/create with autocannon (64 connections,
 *    BENCH_DURATION_S seconds, default 10), each request with a unique participant_id;
 *  - anchor: the same machine's raw PostgreSQL in the same run: 64 pg clients, each doing one transaction that
 *    inserts an equivalent diamond row and its outbox row into the same tables with the same indexes (a database
 *    migrated with platform's own migrations), through the prepared statement the service sends for one registration.
 *    Measured before and after the HTTP run and averaged (other work on the machine moves both). The service writes
 *    registrations that arrive together in one statement (RegistrationWriter), so this anchor is what the database
 *    does for registrations written one by one, not the service's ceiling.
 *  - second anchor, after that run: bare Fastify + pg in its own process doing the same write per request (body
 *    parsed, the same row, event and prepared statement, the record answered; no Nest, validation, token, idempotency
 *    or custody): the floor of "HTTP plus this write" on this machine. It and the service, both up, take the same load
 *    turn about (BENCH_BARE_TURNS turns each, default 6, of 0.5 s not counted and BENCH_BARE_SLICE_S counted, default
 *    2), so that both see the same spells of the machine (its speed moves by up to 2x within seconds; one after the
 *    other, the ratio moved by as much as the goal's margin). BENCH_BARE_ANCHOR=0 skips it.
 * Figures: throughput (ratio = service / raw, higher is better), p50/p99 latency (ratio = service / raw, lower is
 * better), the server process's CPU time per request (no anchor; steadier than throughput on a shared machine), and
 * throughput, p99 and CPU per request against the bare server (`*_vs_bare_http`: both from the interleaved turns),
 * and PostgreSQL's CPU per request in those turns (`postgres_cpu_per_request_vs_bare_http`: its backends in each
 * server's databases and its own processes), which with the server's is what throughput on this machine follows.
 * BENCH_SERVER_CGROUP=dir starts the service inside that cgroup (v1 or v2; the bench must be allowed to write its
 * cgroup.procs, e.g. root and `mkdir /sys/fs/cgroup/memory/dtp && echo 536870912 >
 * /sys/fs/cgroup/memory/dtp/memory.limit_in_bytes`): Node then sizes its heap from the cgroup's memory limit, as in a
 * pod (docs/operations.md, "Memory"). NODE_OPTIONS reaches the service as it does any child.
 * BENCH_CPU_PROF_DIR=dir writes a CPU profile (.cpuprofile, V8 inspector) of the server process during the
 * measured run only; bench/cpuprofile-summary.mjs prints its top costs. With BENCH_PROFILE=heap it writes a sampling
 * heap profile instead (.heapprofile: the bytes each function allocated, freed or not), which the same script reads.
 */
import autocannon from 'autocannon';
import { spawn, ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import pino from 'pino';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport, outboxInsert } from '@dtp/events';
import { CreateRoughDiamondDto, newDiamondId, newVersionId } from '@dtp/domain';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import { DIAMOND_COLUMNS, DIAMOND_JSON_COLUMNS, DiamondRow } from '../apps/platform/src/diamonds/diamond.entity';
import { toDiamondV1 } from '../apps/platform/src/diamonds/diamond.mapper';
import { diamondUpserted } from '../apps/platform/src/diamonds/diamond-events';
import { newRoughRow } from '../apps/platform/src/registration/registration.service';
import type { Benchmark } from './run';
import { mean, postgresCpuByDatabase } from './support';

const ISSUER = 'http://auth.bench';
const AUDIENCE = 'http://platform.bench';
const ADMIN = 'bench-admin-token-0123456789';
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 64;
const SERVER_FLAG = 'DTP_BENCH_PLATFORM_SERVER';
const BARE_FLAG = 'DTP_BENCH_PLATFORM_BARE';
/** BENCH_IDEMPOTENCY_KEY=1: every request carries its own Idempotency-Key (figures `platform.rough_create_keyed.*`). */
const WITH_KEY = process.env.BENCH_IDEMPOTENCY_KEY === '1';
const FIGURE = WITH_KEY ? 'platform.rough_create_keyed' : 'platform.rough_create';
/** BENCH_PROFILE=heap (with BENCH_CPU_PROF_DIR): a sampling heap profile (what allocates) instead of the CPU profile. */
const HEAP_PROFILE = process.env.BENCH_PROFILE === 'heap';

const roughRequest = (participantId: string) => ({
  box_id: 'SIGHT-2024-03',
  participant_id: participantId,
  participant_timestamp: '2024-03-01T10:00:00Z',
  box_description: 'March sight',
  sight_no: 3,
  sight_year: 2024,
  rough: { carats: 1.25, colour: 'D', model: 'M-1', quality: 'Q1', stress: 'light stress' },
});

// ---------------------------------------------------------------------------------------------------------------
// Child process: auth + platform on loopback ports, announced on stdout as `READY {"auth": url, "platform": url}`.

async function serve(): Promise<void> {
  const serverUrl = process.env.BENCH_PG_URL!;
  const logger = pino({ level: 'warn' });
  const transport = new InProcessTransport((err) => logger.error({ err }, 'event handler failed'));
  const common = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', AUTH_ISSUER: ISSUER, PLATFORM_AUDIENCE: AUDIENCE };
  const authConfig = loadConfig('auth', authService.configClass, {
    ...common,
    DATABASE_URL: withDatabase(serverUrl, 'bench_auth'),
    AUTH_ADMIN_TOKEN: ADMIN,
    TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
    TOKEN_RATE_LIMIT_PER_IP: '100000000',
  });
  const platformConfig = loadConfig('platform', platformService.configClass, {
    ...common,
    DATABASE_URL: withDatabase(serverUrl, 'bench_platform'),
    AUTH_JWKS_URL: 'http://127.0.0.1:9/unused', // replaced below once auth listens
    BLOB_STORE_DIR: process.env.BENCH_BLOB_DIR!,
    ...(process.env.BENCH_DB_POOL_SIZE ? { DB_POOL_SIZE: process.env.BENCH_DB_POOL_SIZE } : {}),
    ...(process.env.BENCH_CUSTODY_INTERVAL_MS ? { CUSTODY_CHECKPOINT_INTERVAL_MS: process.env.BENCH_CUSTODY_INTERVAL_MS } : {}),
  });
  await authService.migrate(authConfig, logger);
  await platformService.migrate(platformConfig, logger);
  const services: RunningService[] = [];
  const auth = await authService.start(authConfig, { transport }, logger);
  services.push(auth);
  platformConfig.AUTH_JWKS_URL = `${auth.url.replace('localhost', '127.0.0.1')}/.well-known/jwks.json`;
  const platform = await platformService.start(platformConfig, { transport }, logger);
  services.push(platform);
  // The parent asks over IPC for this process's CPU time (figure `.server_cpu_per_request`) and, with
  // BENCH_CPU_PROF_DIR, starts and stops a CPU profile around the measured run only (no startup, no anchor phases).
  let profiler: Session | undefined;
  process.on('message', (msg: string) => {
    void (async () => {
      if (msg === 'cpu') return process.send!({ cpu: process.cpuUsage() });
      if (msg === 'prof-start') {
        profiler = new Session();
        profiler.connect();
        if (HEAP_PROFILE) {
          // Every allocation sampled (one per 32 KiB), kept whether or not the garbage collector has freed it since.
          await post(profiler, 'HeapProfiler.enable');
          await post(profiler, 'HeapProfiler.startSampling', {
            samplingInterval: 32768,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          });
        } else {
          await post(profiler, 'Profiler.enable');
          await post(profiler, 'Profiler.setSamplingInterval', { interval: 500 });
          await post(profiler, 'Profiler.start');
        }
        return process.send!({ profiling: true });
      }
      if (msg === 'prof-stop' && profiler) {
        const { profile } = (await post(profiler, HEAP_PROFILE ? 'HeapProfiler.stopSampling' : 'Profiler.stop')) as { profile: unknown };
        const dir = path.resolve(process.env.BENCH_CPU_PROF_DIR!);
        await mkdir(dir, { recursive: true });
        const ext = HEAP_PROFILE ? 'heapprofile' : 'cpuprofile';
        const file = path.join(dir, `platform-${new Date().toISOString().replace(/[:.]/g, '-')}.${ext}`);
        await writeFile(file, JSON.stringify(profile));
        profiler.disconnect();
        return process.send!({ profile: file });
      }
    })();
  });
  process.stdout.write(
    `READY ${JSON.stringify({ auth: auth.url.replace('localhost', '127.0.0.1'), platform: platform.url.replace('localhost', '127.0.0.1') })}\n`,
  );
  process.on('SIGTERM', () => {
    void (async () => {
      for (const s of services.reverse()) await s.close().catch(() => undefined);
      await transport.close();
      process.exit(0);
    })();
  });
}

const post = (session: Session, method: string, params?: object) =>
  new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));

/** Sends `msg` to the server child and resolves with its first answer that has `key`; rejects if the child exits first. */
function ask<T>(child: ChildProcess, msg: string, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench child exited with ${code} before answering ${msg}`));
    const onMessage = (answer: Record<string, unknown>) => {
      if (!(key in answer)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(answer[key] as T);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(msg);
  });
}

/**
 * Runs this file again as a child process with `flag` set (the service, or the bare anchor) and resolves with its
 * `READY {...urls}` line, parsed, once it listens.
 */
async function startChild<T>(flag: string, env: Record<string, string>): Promise<{ child: ChildProcess; urls: T }> {
  const root = path.join(__dirname, '..');
  const argv = ['-r', path.join(root, 'tools/register.js'), __filename];
  // BENCH_SERVER_CGROUP: the service starts inside that cgroup, as in a container with a memory limit, where Node
  // sizes the heap from the limit (a shell joins it, then execs node, so node starts inside).
  const cgroup = flag === SERVER_FLAG ? process.env.BENCH_SERVER_CGROUP : undefined;
  const [command, args] = cgroup
    ? ['sh', ['-c', 'echo $$ > "$DTP_BENCH_CGROUP/cgroup.procs" && exec "$0" "$@"', process.execPath, ...argv]]
    : [process.execPath, argv];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env, [flag]: '1', ...(cgroup ? { DTP_BENCH_CGROUP: cgroup } : {}) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const urls = await new Promise<T>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)) as T);
    });
    child.once('exit', (code) => reject(new Error(`bench child ${flag} exited with ${code}`)));
  });
  return { child, urls };
}

/** User + system CPU time between two readings, in microseconds. */
const cpuMicros = (before: NodeJS.CpuUsage, after: NodeJS.CpuUsage): number => after.user - before.user + (after.system - before.system);

// ---------------------------------------------------------------------------------------------------------------
// Anchor: raw PostgreSQL doing the same write.

let rawSeq = 0;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The raw write: one statement inserting a diamond row and its outbox row, and the parameters for one diamond. */
function rawStatement(producerId: string) {
  const caller = { participantId: producerId, role: 'producer' as const, clientId: 'bench', name: 'Bench Mining' };
  const dto = roughRequest('template') as unknown as CreateRoughDiamondDto;
  const provenance = {
    provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
    pending: false,
  };
  const param = (col: keyof DiamondRow, i: number) => (DIAMOND_JSON_COLUMNS.has(col) ? `$${i}::jsonb` : `$${i}`);
  const insert = `INSERT INTO diamonds (${DIAMOND_COLUMNS.join(', ')}) VALUES (${DIAMOND_COLUMNS.map((c, i) => param(c, i + 1)).join(', ')})`;
  const outboxSql = outboxInsert([{ topic: 't', key: 'k', eventType: 'e', revision: 1, payload: {} }], DIAMOND_COLUMNS.length + 1).sql;
  const sql = `WITH d AS (${insert}) ${outboxSql}`;
  const paramsFor = (participantId: string) => {
    const now = new Date();
    const row = newRoughRow(
      caller,
      { ...dto, participant_id: participantId } as CreateRoughDiamondDto,
      { kind: 'own', scope: producerId },
      provenance,
      producerId,
      now,
    );
    row.diamond_id = newDiamondId();
    row.legacy_id = randomUUID();
    row.version_id = newVersionId();
    const record = toDiamondV1(row);
    const event = diamondUpserted(record, 1, now);
    const values = DIAMOND_COLUMNS.map((c) => (DIAMOND_JSON_COLUMNS.has(c) && row[c] !== null ? JSON.stringify(row[c]) : row[c]));
    return { params: [...values, ...outboxInsert([event], DIAMOND_COLUMNS.length + 1).values], record };
  };
  return { sql, paramsFor };
}

/** 64 pg clients, each looping one transaction (diamond row + outbox row, one statement) for `seconds`. */
async function rawInsertRate(dbUrl: string, seconds: number, producerId: string): Promise<{ rate: number; p50: number; p99: number }> {
  const { sql, paramsFor } = rawStatement(producerId);
  const clients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new Client({ connectionString: dbUrl });
      c.on('error', () => undefined);
      await c.connect();
      return c;
    }),
  );
  const latencies: number[] = [];
  let done = 0;
  const started = Date.now();
  const until = started + seconds * 1000;
  try {
    await Promise.all(
      clients.map(async (c) => {
        while (Date.now() < until) {
          const { params } = paramsFor(`raw-${process.pid}-${rawSeq++}`);
          const t = process.hrtime.bigint();
          await c.query({ name: 'raw_insert', text: sql, values: params });
          latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
          done += 1;
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  latencies.sort((a, b) => a - b);
  return { rate: done / ((Date.now() - started) / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

// ---------------------------------------------------------------------------------------------------------------
// Second anchor: bare Fastify + pg in its own process doing the same write per request (JSON body parsed, the same
// row and event built, the same prepared statement through a pool of the service's default size, the record sent
// back) with no Nest, no validation, no token, no custody entry: the floor of "HTTP plus this write" on this machine.

async function serveBare(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { Pool } = await import('pg');
  const pool = new Pool({ connectionString: process.env.BENCH_PG_URL!, max: 20 });
  pool.on('error', () => undefined);
  const producerId = process.env.BENCH_PRODUCER_ID!;
  const { sql, paramsFor } = rawStatement(producerId);
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.post('/diamonds/rough/create', async (req) => {
    const body = req.body as { participant_id: string };
    const { params, record } = paramsFor(body.participant_id);
    await pool.query({ name: 'raw_insert', text: sql, values: params });
    return record;
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('message', (msg: string) => {
    if (msg === 'cpu') process.send!({ cpu: process.cpuUsage() });
  });
  process.stdout.write(`READY ${JSON.stringify({ platform: url })}\n`);
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

// ---------------------------------------------------------------------------------------------------------------

function load(url: string, token: string, seconds: number, prefix: string): Promise<autocannon.Result> {
  let n = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/diamonds/rough/create`,
        connections: CONNECTIONS,
        duration: seconds,
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (req) => {
              const id = `${prefix}-${n++}`;
              return { ...req, body: JSON.stringify(roughRequest(id)), ...(WITH_KEY ? { headers: { ...req.headers, 'idempotency-key': id } } : {}) };
            },
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** Turns per server of the interleaved comparison with the bare server (BENCH_BARE_TURNS, default 6). */
const BARE_TURNS = Number(process.env.BENCH_BARE_TURNS ?? 6);
/** A turn's counted load, in seconds (BENCH_BARE_SLICE_S, default 2), after SETTLE_S of load not counted. */
const SLICE_S = Number(process.env.BENCH_BARE_SLICE_S ?? 2);
const SETTLE_S = 0.5;

interface Contender {
  name: 'service' | 'bare';
  child: ChildProcess;
  url: string;
  /** The databases its connections use: PostgreSQL's CPU in them (and in its own processes) is the contender's. */
  databases: string[];
}

/** One contender's figures over its counted slices. */
interface Figures {
  rate: number;
  /** Mean of the slices' p99 latencies, in ms. */
  p99: number;
  /** CPU time per answered request, in microseconds. */
  cpuUs: number;
  /** CPU per request of each slice, in turn order. */
  slices: number[];
  /**
   * PostgreSQL's CPU time per answered request, in microseconds, over the same spans as `cpuUs`: its backends in the
   * contender's databases and its own processes (WAL writer, checkpointer, ...).
   */
  postgresUs: number;
  /** `postgresUs` of each slice, in turn order. */
  postgresSlices: number[];
}

interface Interleaved {
  service: Figures;
  bare: Figures;
}

/**
 * The service and the bare server under the same load, turn about: service, bare, service, bare, ... BARE_TURNS
 * turns each. A turn is SETTLE_S seconds of load not counted (connections opened, the previous server finishing what
 * it was given: its outbox, its custody entries), then SLICE_S seconds counted. A server's CPU is read at the start of
 * its counted slice and again at the end of the next turn's settling time, so what it does after its load stops (the
 * relay, the checkpointer) is its own. Each figure is over all of a server's slices; the `#` line gives the ratio of
 * each pair of neighbouring turns, whose spread is what the machine's moving speed leaves in the figure.
 */
async function interleaved(service: Contender, bare: Contender, token: string): Promise<Interleaved> {
  const acc = new Map<Contender, { cpu: number; pgCpu: number; ok: number; p99s: number[]; slices: number[]; pgSlices: number[] }>(
    [service, bare].map((c) => [c, { cpu: 0, pgCpu: 0, ok: 0, p99s: [], slices: [], pgSlices: [] }]),
  );
  // PostgreSQL serves both contenders, and a slice's span takes in the next turn's settling: its CPU is counted in
  // the contender's own databases, plus PostgreSQL's own processes (shared; small beside the backends).
  const postgresCpu = (who: Contender) => {
    const byDb = postgresCpuByDatabase();
    return ['', ...who.databases].reduce((sum, db) => sum + (byDb.get(db) ?? 0), 0);
  };
  let open: { who: Contender; cpu: NodeJS.CpuUsage; pgCpu: number; result: autocannon.Result } | undefined;
  const close = async () => {
    if (!open) return;
    const end = await ask<NodeJS.CpuUsage>(open.who.child, 'cpu', 'cpu');
    const pgCpu = (postgresCpu(open.who) - open.pgCpu) * 1e6;
    const a = acc.get(open.who)!;
    const { result } = open;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${open.who.name} (interleaved): ${result.non2xx} non-2xx, ${result.errors} errors`);
    const cpu = cpuMicros(open.cpu, end);
    a.cpu += cpu;
    a.pgCpu += pgCpu;
    a.ok += result['2xx'];
    a.p99s.push(result.latency.p99);
    a.slices.push(cpu / Math.max(1, result['2xx']));
    a.pgSlices.push(pgCpu / Math.max(1, result['2xx']));
    open = undefined;
  };
  for (let i = 0; i < 2 * BARE_TURNS; i++) {
    const who = i % 2 === 0 ? service : bare;
    await load(who.url, token, SETTLE_S, `${who.name}-settle-${i}`);
    await close();
    const cpu = await ask<NodeJS.CpuUsage>(who.child, 'cpu', 'cpu');
    const pgCpu = postgresCpu(who);
    open = { who, cpu, pgCpu, result: await load(who.url, token, SLICE_S, `${who.name}-${i}`) };
  }
  await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
  await close();
  const figures = (c: Contender): Figures => {
    const a = acc.get(c)!;
    return {
      rate: a.ok / (a.slices.length * SLICE_S),
      p99: mean(a.p99s),
      cpuUs: a.cpu / Math.max(1, a.ok),
      slices: a.slices,
      postgresUs: a.pgCpu / Math.max(1, a.ok),
      postgresSlices: a.pgSlices,
    };
  };
  const out = { service: figures(service), bare: figures(bare) };
  const pairs = out.service.slices.map((s, i) => round(s / out.bare.slices[i], 2));
  process.stderr.write(
    `# interleaved turns (${BARE_TURNS} x ${SLICE_S} s each): CPU per request, service ${out.service.slices.map((x) => round(x)).join(', ')} us; ` +
      `bare ${out.bare.slices.map((x) => round(x)).join(', ')} us; service/bare per pair ${pairs.join(', ')}\n` +
      `# the same turns, PostgreSQL's CPU per request: service ${out.service.postgresSlices.map((x) => round(x)).join(', ')} us; ` +
      `bare ${out.bare.postgresSlices.map((x) => round(x)).join(', ')} us\n`,
  );
  return out;
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres } = await import('../tools/embedded-pg.mjs');
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-platform-${tag}`;
  const blobDir = `/tmp/dtp-bench-platform-blobs-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  let server: ChildProcess | undefined;
  let bare: ChildProcess | undefined;
  try {
    for (const name of ['bench_auth', 'bench_platform', 'bench_anchor']) await ensureDatabase(withDatabase(pg.url, name));
    const anchorDb = withDatabase(pg.url, 'bench_anchor');
    const anchorConfig = loadConfig('platform', platformService.configClass, { PORT: '0', DATABASE_URL: anchorDb });
    await platformService.migrate(anchorConfig, pino({ level: 'silent' }));

    const started = await startChild<{ auth: string; platform: string }>(SERVER_FLAG, { BENCH_PG_URL: pg.url, BENCH_BLOB_DIR: blobDir });
    server = started.child;
    const { auth, platform } = started.urls;

    const onboarded = await fetch(`${auth}/admin/participants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench Mining', role: 'producer', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } }),
    });
    const creds = (await onboarded.json()) as { participant_id: string; client_id: string; client_secret: string };
    const tokenRes = await fetch(`${auth}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret, audience: AUDIENCE }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    // Wait until platform has consumed the onboarding event (registrations then take the one-statement path).
    const platformDb = new Client({ connectionString: withDatabase(pg.url, 'bench_platform') });
    platformDb.on('error', () => undefined);
    await platformDb.connect();
    for (let i = 0; ; i++) {
      const { rowCount } = await platformDb.query('SELECT 1 FROM participants WHERE participant_id = $1', [creds.participant_id]);
      if (rowCount === 1) break;
      if (i > 200) throw new Error('platform never received the onboarding event');
      await new Promise((r) => setTimeout(r, 50));
    }
    const probe = await fetch(`${platform}/diamonds/rough/create`, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify(roughRequest('probe')),
    });
    if (probe.status !== 200) throw new Error(`registration probe answered ${probe.status}: ${await probe.text()}`);

    await load(platform, token, 2, 'warm'); // JIT, pools, JWKS cache
    const before = await rawInsertRate(anchorDb, Math.max(3, DURATION / 2), creds.participant_id);
    const profiling = process.env.BENCH_CPU_PROF_DIR ? await ask<boolean>(server, 'prof-start', 'profiling') : false;
    const cpuBefore = await ask<NodeJS.CpuUsage>(server, 'cpu', 'cpu');
    const result = await load(platform, token, DURATION, 'run');
    const cpuAfter = await ask<NodeJS.CpuUsage>(server, 'cpu', 'cpu');
    if (profiling)
      process.stderr.write(`# ${HEAP_PROFILE ? 'heap' : 'CPU'} profile of the measured run: ${await ask<string>(server, 'prof-stop', 'profile')}\n`);
    const after = await rawInsertRate(anchorDb, Math.max(3, DURATION / 2), creds.participant_id);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`registration benchmark: ${result.non2xx} non-2xx, ${result.errors} errors`);
    const { rows } = await platformDb.query<{ n: number }>(`SELECT count(*)::int AS n FROM diamonds WHERE participant_id LIKE 'run-%'`);
    await platformDb.end();
    // Requests still in flight when autocannon stops are completed by the server but not counted by autocannon.
    if (rows[0].n < result['2xx'] || rows[0].n > result['2xx'] + CONNECTIONS) {
      throw new Error(`expected ${result['2xx']} (+ up to ${CONNECTIONS} in flight) stored diamonds, found ${rows[0].n}`);
    }

    // The bare Fastify + pg anchor, interleaved with the service (both processes up): BARE_TURNS turns each,
    // alternating, so that both see the same spells of a machine whose speed moves by up to 2x within seconds.
    // BENCH_BARE_ANCHOR=0 leaves it out (quicker runs when comparing two versions of the service).
    let bareFigures: Interleaved | undefined;
    if (process.env.BENCH_BARE_ANCHOR !== '0') {
      const started = await startChild<{ platform: string }>(BARE_FLAG, { BENCH_PG_URL: anchorDb, BENCH_PRODUCER_ID: creds.participant_id });
      bare = started.child;
      await load(started.urls.platform, token, 2, 'bare-warm'); // JIT, pool (the service is warm from its run)
      bareFigures = await interleaved(
        { name: 'service', child: server, url: platform, databases: ['bench_platform', 'bench_auth'] },
        { name: 'bare', child: bare, url: started.urls.platform, databases: ['bench_anchor'] },
        token,
      );
    }

    const anchor = { rate: (before.rate + after.rate) / 2, p50: (before.p50 + after.p50) / 2, p99: (before.p99 + after.p99) / 2 };
    const rate = result['2xx'] / DURATION;
    report({ name: `${FIGURE}.throughput`, value: round(rate), unit: 'req/s', anchor: round(anchor.rate), ratio: round(rate / anchor.rate, 3) });
    report({ name: `${FIGURE}.p99`, value: result.latency.p99, unit: 'ms', anchor: round(anchor.p99, 2), ratio: round(result.latency.p99 / anchor.p99, 3) });
    // The server's own CPU time per answered request (user + system, both services' process): what the code
    // costs, much steadier than throughput on a shared machine. No anchor.
    const serviceCpu = cpuMicros(cpuBefore, cpuAfter) / Math.max(1, result['2xx']);
    report({ name: `${FIGURE}.server_cpu_per_request`, value: round(serviceCpu), unit: 'us', anchor: null, ratio: null });
    report({ name: `${FIGURE}.p50`, value: result.latency.p50, unit: 'ms', anchor: round(anchor.p50, 2), ratio: round(result.latency.p50 / anchor.p50, 3) });
    // The same figures against bare Fastify + pg doing the same write (no framework, validation, token or custody).
    // Measured in the interleaved turns, not in the run above: each figure's value and anchor come from the same spells.
    if (bareFigures) {
      const { service: v, bare: b } = bareFigures;
      report({ name: `${FIGURE}.throughput_vs_bare_http`, value: round(v.rate), unit: 'req/s', anchor: round(b.rate), ratio: round(v.rate / b.rate, 3) });
      report({ name: `${FIGURE}.p99_vs_bare_http`, value: round(v.p99, 2), unit: 'ms', anchor: round(b.p99, 2), ratio: round(v.p99 / b.p99, 3) });
      // The server's CPU per request, then PostgreSQL's side of the same requests: the service writes registrations
      // that arrive together in one statement, the bare server one statement (and one commit) per request. With the
      // server's CPU it is what the machine spends per request besides the load generator, which is what throughput
      // on two cores follows.
      for (const [figure, of] of [
        ['server_cpu_per_request_vs_bare_http', (f: Figures) => f.cpuUs],
        ['postgres_cpu_per_request_vs_bare_http', (f: Figures) => f.postgresUs],
      ] as const) {
        report({ name: `${FIGURE}.${figure}`, value: round(of(v)), unit: 'us', anchor: round(of(b)), ratio: round(of(v) / of(b), 3) });
      }
    }
  } finally {
    await Promise.all([stop(server), stop(bare)]);
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
  }
};

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

if (process.env[BARE_FLAG] === '1') {
  serveBare().catch((err) => {
    process.stderr.write(`bare bench server failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
} else if (process.env[SERVER_FLAG] === '1') {
  serve().catch((err) => {
    process.stderr.write(`platform bench server failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

export default bench;
