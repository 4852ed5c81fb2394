/**
 * Search benchmark (`npm run bench -- search`).
 *
 * Starts an embedded PostgreSQL (durable settings, throw-away data dir under /tmp) and a Kafka wire-protocol peer
 * (the kcat mock cluster, tools/kafka-peer.mjs), then two CHILD processes (LOG_LEVEL=warn, KafkaTransport:
 * outbox -> relay -> Kafka -> search's consumer): auth + platform, and search plus the anchor: a bare Fastify
 * server whose GET /v1/diamonds/:id does the same primary-key select with `pg` (same pool size) and sends the
 * record.
 *
 * 1. Reads: BENCH_READ_IDS (default 2,000) records in the read model; autocannon, 64 connections,
 *    BENCH_DURATION_S (default 10) s of GET /v1/diamonds/{id} cycling over the ids, against search (with a
 *    non_participant token) and against the anchor, anchor measured before and after and averaged.
 *    Figures: search.read.throughput (ratio = search / anchor, higher is better), search.read.p99
 *    (ratio = search / anchor, lower is better) and search.read.server_cpu_per_request (the search process's CPU
 *    time per answer while it serves search, anchor: the same process while it serves the anchor; lower is
 *    better, and steadier than throughput on a shared machine) and search.read.db_cpu_per_request (PostgreSQL's
 *    CPU time per answer, every postgres process with the time of backends that ended (support.ts
 *    postgresCpuSeconds), the same phases: search's statement is prepared once per connection, the anchor's is
 *    parsed and planned on every read).
 * 2. Lag: a steady BENCH_LAG_RATE (default 200), then BENCH_LAG_RATE_HIGH (default 1,000) registrations per second
 *    for BENCH_LAG_S (default 10; 0 skips the lag part) s through platform; for each diamond, the time from the commit of its
 *    registration (its outbox row's created_at) to its row in search's read model being written (same PostgreSQL
 *    server, same clock), and its split: commit -> published (the relay) and published -> visible (Kafka and
 *    search's consumer). Figures: search.visibility_lag.p50 / .p99 (ms; no anchor; goal of #17: p99 < 250 ms at
 *    200/s, < 1 s at 1,000/s), the same "at 1000/s", and the two parts' p99 at each rate. The generator is open
 *    loop (node:http, at most 64 sockets); search.lag_committed_rate says how many registrations per second platform
 *    actually committed (ratio to the rate offered: on 2 cores shared with PostgreSQL, search, the Kafka peer and
 *    the generator, platform committed 930 to 1,000 of the 1,000 offered before its group commit, all of them
 *    since). search.visibility_lag_after_answer.p50 / .p99 (at each rate): the same lag counted from
 *    when the generator had the registration's 2xx answer, what a client that registers and then searches waits;
 *    the `#` line gives the part before it (outbox insert -> answered: the rest of the statement, its commit's WAL
 *    flush and the answer's way back). BENCH_LAG_TIMELINE=1 prints the lag per 500 ms. Before the first rate, BENCH_LAG_WARMUP_S (default 5)
 *    seconds of registrations at that rate, not measured: the steady state, not platform's first seconds of JIT.
 *    CUSTODY_CHECKPOINT_INTERVAL_MS reaches platform as the service reads it (default 2,000): how many entries each
 *    custody checkpoint carries, and so how big the bursts of checkpoint work in platform and search are;
 *    OUTBOX_LINGER_MS likewise (default 20): how long the relay waits between publishes while rows keep coming.
 */
import autocannon from 'autocannon';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Fastify from 'fastify';
import { Pool } from 'pg';
import pino from 'pino';
import { createDataSource, ensureDatabase, withDatabase } from '@dtp/database';
import { DiamondV1, newDiamondId } from '@dtp/domain';
import { KafkaTransport } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import { ReadModelRepository, searchDbOptions, searchService } from '@dtp/search';
import type { Benchmark } from './run';
import { percentile, postgresCpuSeconds, processCpuSeconds, q } from './support';

const ISSUER = 'http://auth.bench';
const AUDIENCES = { platform: 'http://platform.bench', search: 'http://search.bench/v1', gis: 'http://gis.bench' };
const ADMIN = 'bench-admin-token-0123456789';
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const READ_IDS = Number(process.env.BENCH_READ_IDS ?? 2000);
const LAG_RATE = Number(process.env.BENCH_LAG_RATE ?? 200);
const LAG_RATE_HIGH = Number(process.env.BENCH_LAG_RATE_HIGH ?? 1000);
const LAG_SECONDS = Number(process.env.BENCH_LAG_S ?? 10);
/** Seconds of registrations at BENCH_LAG_RATE before the lag is measured (0: 20 registrations in 1 s, as before). */
const WARMUP_SECONDS = Number(process.env.BENCH_LAG_WARMUP_S ?? 5);
const CONNECTIONS = 64;
const POOL_SIZE = 20;
const SERVER_FLAG = 'DTP_BENCH_SEARCH_SERVER';

interface Urls {
  auth: string;
  platform: string;
  search: string;
  anchor: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Child process: the services and the anchor, announced on stdout as `READY {...urls}`.

async function serve(role: string): Promise<void> {
  const serverUrl = process.env.BENCH_PG_URL!;
  const logger = pino({ level: 'warn' });
  // The librdkafka mock cluster answers a fetch only when maxWaitTime has passed (a real broker answers as soon as
  // data arrives, minBytes = 1), so with the mock the fetch wait bounds the lag: 100 ms gives p50 ~70 ms from
  // publish to consume with no other work at all. KAFKA_MAX_WAIT_MS (default 10 here) is the same knob services read.
  const maxWaitTimeInMs = Number(process.env.KAFKA_MAX_WAIT_MS ?? 10);
  const transport = new KafkaTransport({ clientId: `dtp-bench-${role}`, brokers: [process.env.BENCH_KAFKA!], logger, maxWaitTimeInMs, sessionTimeoutMs: 6000 });
  await transport.connect();
  const common = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    AUTH_ISSUER: ISSUER,
    PLATFORM_AUDIENCE: AUDIENCES.platform,
    SEARCH_AUDIENCE: AUDIENCES.search,
    GIS_AUDIENCE: AUDIENCES.gis,
    BLOB_STORE_DIR: process.env.BENCH_BLOB_DIR!,
    DB_POOL_SIZE: String(POOL_SIZE),
    AUTH_JWKS_URL: process.env.BENCH_JWKS ?? 'http://127.0.0.1:9/unused',
  };
  const local = (u: string) => u.replace('localhost', '127.0.0.1');
  const services: RunningService[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  let urls: Partial<Urls>;
  if (role === 'platform') {
    const authConfig = loadConfig('auth', authService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(serverUrl, 'bench_auth'),
      AUTH_ADMIN_TOKEN: ADMIN,
      TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
      TOKEN_RATE_LIMIT_PER_IP: '100000000',
    });
    await authService.migrate(authConfig, logger);
    const auth = await authService.start(authConfig, { transport }, logger);
    services.push(auth);
    const jwks = `${local(auth.url)}/.well-known/jwks.json`;
    const platformConfig = loadConfig('platform', platformService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(serverUrl, 'bench_platform'),
      AUTH_JWKS_URL: jwks,
      CUSTODY_CHECKPOINT_INTERVAL_MS: process.env.CUSTODY_CHECKPOINT_INTERVAL_MS,
      OUTBOX_LINGER_MS: process.env.OUTBOX_LINGER_MS,
    });
    await platformService.migrate(platformConfig, logger);
    const platform = await platformService.start(platformConfig, { transport }, logger);
    services.push(platform);
    urls = { auth: local(auth.url), platform: local(platform.url) };
  } else {
    const searchConfig = loadConfig('search', searchService.configClass, { ...common, DATABASE_URL: withDatabase(serverUrl, 'bench_search') });
    await searchService.migrate(searchConfig, logger);
    const search = await searchService.start(searchConfig, { transport }, logger);
    services.push(search);
    // The anchor: a bare Fastify handler doing the same primary-key select with pg, same pool size.
    const pool = new Pool({ connectionString: searchConfig.DATABASE_URL, max: POOL_SIZE });
    const anchor = Fastify({ logger: false });
    anchor.get<{ Params: { id: string } }>('/v1/diamonds/:id', async (req, reply) => {
      const { rows } = await pool.query<{ record: DiamondV1 }>('SELECT record FROM search_diamonds WHERE diamond_id = $1 AND record IS NOT NULL', [
        req.params.id,
      ]);
      if (rows.length === 0) return reply.status(404).send({ message: 'not found' });
      return rows[0].record;
    });
    await anchor.listen({ port: 0, host: '127.0.0.1' });
    closers.push(
      () => anchor.close(),
      () => pool.end(),
    );
    urls = { search: local(search.url), anchor: `http://127.0.0.1:${(anchor.server.address() as { port: number }).port}` };
  }
  process.stdout.write(`READY ${JSON.stringify(urls)}\n`);
  process.on('SIGTERM', () => {
    void (async () => {
      for (const c of closers) await c().catch(() => undefined);
      for (const s of services.reverse()) await s.close().catch(() => undefined);
      await transport.close();
      process.exit(0);
    })();
  });
}

async function startServer(role: 'platform' | 'search', env: Record<string, string>): Promise<{ child: ChildProcess; urls: Partial<Urls> }> {
  const root = path.join(__dirname, '..');
  // BENCH_CPU_PROF_DIR=dir: a V8 CPU profile of each server child's whole life (bench/cpuprofile-summary.mjs reads it).
  const prof = process.env.BENCH_CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF_DIR)}`, `--cpu-prof-name=search-bench-${role}-${process.pid}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, [...prof, '-r', path.join(root, 'tools/register.js'), __filename], {
    cwd: root,
    env: { ...process.env, ...env, [SERVER_FLAG]: role },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls = await new Promise<Partial<Urls>>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)) as Partial<Urls>);
    });
    child.once('exit', (code) => reject(new Error(`search bench ${role} server exited with ${code}`)));
  });
  return { child, urls };
}

// ---------------------------------------------------------------------------------------------------------------

function readLoad(url: string, ids: string[], token: string | null, seconds: number): Promise<autocannon.Result> {
  let n = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
        headers: token ? { authorization: token } : {},
        requests: [{ setupRequest: (req) => ({ ...req, path: `/v1/diamonds/${ids[n++ % ids.length]}` }) }],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

async function postJson<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function credentials(authUrl: string, role: string, audience: string): Promise<string> {
  const p = await postJson<{ client_id: string; client_secret: string }>(
    `${authUrl}/admin/participants`,
    { name: `bench ${role}`, role, ...(role === 'producer' ? { provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } } : {}) },
    { authorization: `Bearer ${ADMIN}` },
  );
  const t = await postJson<{ access_token: string }>(`${authUrl}/oauth/token`, {
    grant_type: 'client_credentials',
    client_id: p.client_id,
    client_secret: p.client_secret,
    audience,
  });
  return t.access_token;
}

function record(i: number): DiamondV1 {
  const now = new Date().toISOString();
  return {
    assurance_level: 'assured',
    current_stage: 'rough',
    diamond_id: newDiamondId(),
    id: randomUUID(),
    is_current: true,
    lifecycle_state: 'rough',
    participant_timestamp: now,
    polished: {},
    possession_state: 'held',
    producer_uuid: randomUUID(),
    provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
    rough: { carats: '1.25', colour: 'D', model: 'M-1', quality: 'Q1', stress: 'light stress' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: now,
    unlock_status: 'locked',
    version_id: randomUUID(),
    box_id: 'SIGHT-2024-03',
    participant_id: `bench-${i}`,
    schema_version: '1',
    sight_no: 3,
    sight_year: 2024,
    box_description: 'March sight',
    grading: null,
    data_requests: [],
    three_d_plan_available: false,
    verification_status: 'Verified',
    verification_description: 'verified record',
    gis_status: null,
    archived_at: null,
  };
}

/**
 * Registers at a steady `rate` per second for `seconds`, open loop (each request leaves at its due time whatever the
 * earlier ones are doing); returns how many succeeded. node:http over a keep-alive agent of at most 64 sockets, not
 * fetch: at 1,000/s fetch took 20 to 60 % of a core in this process, CPU the services under test did not get on a
 * 2-core machine (requests past 64 in flight wait in the agent; the lag is measured from the commit, after that).
 */
async function steadyRegistrations(
  platformUrl: string,
  token: string,
  rate: number,
  seconds: number,
): Promise<{ ok: number; answeredAt: Map<string, number> }> {
  let ok = 0;
  const answeredAt = new Map<string, number>();
  let failed = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL('/diamonds/rough/create', platformUrl);
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: token } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            // When the client has its answer (this machine's clock, as PostgreSQL's): the lag after it is what it sees.
            const at = Date.now();
            if (res.statusCode! < 200 || res.statusCode! >= 300) return reject(new Error(`status ${res.statusCode}`));
            answeredAt.set((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { diamond_id: string }).diamond_id, at);
            resolve();
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const inflight: Promise<void>[] = [];
  const started = Date.now();
  const total = rate * seconds;
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = JSON.stringify({
      box_id: 'LAG-BOX',
      participant_id: `lag-${i}-${randomBytes(3).toString('hex')}`,
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: 1.25 },
    });
    inflight.push(
      post(body).then(
        () => void (ok += 1),
        () => void (failed += 1),
      ),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  if (failed > 0) process.stderr.write(`# ${failed} registrations failed\n`);
  return { ok, answeredAt };
}

/**
 * Registers at `rate`/s for LAG_SECONDS and measures, per diamond, commit -> visible in search (outbox
 * created_at to the read-model row's updated_at: one PostgreSQL clock), and its two parts.
 */
async function visibilityLag(platformUrl: string, producer: string, platformDb: string, searchDb: string, rate: number) {
  const [{ before }] = await q<{ before: string }>(platformDb, 'SELECT coalesce(max(id), 0)::text AS before FROM outbox');
  const { ok, answeredAt } = await steadyRegistrations(platformUrl, producer, rate, LAG_SECONDS);
  const outboxRows = () =>
    q<{ key: string; t: string; p: string | null }>(
      platformDb,
      `SELECT key, (extract(epoch FROM created_at) * 1000)::float8::text AS t, (extract(epoch FROM published_at) * 1000)::float8::text AS p
       FROM outbox WHERE id > ${Number(before)} AND event_type = 'diamond.upserted'`,
    );
  let commits = await outboxRows();
  const committed = new Map(commits.map((c) => [c.key, Number(c.t)]));
  const deadline = Date.now() + 60_000;
  let applied = new Map<string, number>();
  while (Date.now() < deadline) {
    const rows = await q<{ diamond_id: string; t: string }>(
      searchDb,
      'SELECT diamond_id, (extract(epoch FROM updated_at) * 1000)::float8::text AS t FROM search_diamonds',
    );
    applied = new Map(rows.map((r) => [r.diamond_id, Number(r.t)]));
    if ([...committed.keys()].every((k) => applied.has(k))) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // Read again now that they are visible: a row still unpublished at the first read had no published_at yet (its
  // commit -> published and published -> visible would have been counted from 0).
  commits = await outboxRows();
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  const seen = commits.filter((c) => applied.has(c.key) && c.p !== null);
  const lags = sorted(seen.map((c) => applied.get(c.key)! - Number(c.t)));
  const publish = sorted(seen.map((c) => Number(c.p) - Number(c.t)));
  const consume = sorted(seen.map((c) => applied.get(c.key)! - Number(c.p)));
  // The same lag counted from when the client had its answer instead of from the outbox row's insert: without the
  // registration's own commit (its WAL flush) and answer, which the client waits for before it could look.
  const answered = seen.filter((c) => answeredAt.has(c.key));
  const afterAnswer = sorted(answered.map((c) => applied.get(c.key)! - answeredAt.get(c.key)!));
  const beforeAnswer = sorted(answered.map((c) => answeredAt.get(c.key)! - Number(c.t)));
  // BENCH_LAG_TIMELINE=1: the lag by commit time, per 500 ms (a lag that grows through the run: the consumer is
  // slower than the rate; one that comes and goes: stalls).
  if (process.env.BENCH_LAG_TIMELINE === '1') {
    const t0 = Math.min(...seen.map((c) => Number(c.t)));
    const buckets = new Map<number, { lag: number[]; pub: number[] }>();
    for (const c of seen) {
      const b = Math.floor((Number(c.t) - t0) / 500);
      const e = buckets.get(b) ?? { lag: [], pub: [] };
      e.lag.push(applied.get(c.key)! - Number(c.t));
      e.pub.push(Number(c.p) - Number(c.t));
      buckets.set(b, e);
    }
    for (const [b, e] of [...buckets].sort((x, y) => x[0] - y[0])) {
      const l = sorted(e.lag),
        pu = sorted(e.pub);
      process.stderr.write(
        `#   +${b * 500} ms: ${l.length} commits, lag p50 ${Math.round(percentile(l, 50))} max ${Math.round(l[l.length - 1])} | pub p50 ${Math.round(percentile(pu, 50))} max ${Math.round(pu[pu.length - 1])}\n`,
      );
    }
  }
  if (seen.length < commits.length) process.stderr.write(`# ${commits.length - seen.length} registrations never reached search\n`);
  // The rate platform actually committed at (the generator offers `rate`; a saturated machine commits fewer).
  const times = commits.map((c) => Number(c.t));
  const committedRate = commits.length > 1 ? ((commits.length - 1) * 1000) / (Math.max(...times) - Math.min(...times)) : 0;
  process.stderr.write(
    `# lag at ${rate}/s: ${ok} registrations in ${LAG_SECONDS} s, committed at ${Math.round(committedRate)}/s, ${lags.length} measured; commit -> published p50 ${Math.round(percentile(publish, 50))} ms, ` +
      `p99 ${Math.round(percentile(publish, 99))} ms; published -> visible p50 ${Math.round(percentile(consume, 50))} ms, p99 ${Math.round(percentile(consume, 99))} ms; ` +
      `outbox insert -> client answered p50 ${Math.round(percentile(beforeAnswer, 50))} ms, p99 ${Math.round(percentile(beforeAnswer, 99))} ms\n`,
  );
  return {
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    publishP99: percentile(publish, 99),
    consumeP99: percentile(consume, 99),
    afterAnswerP50: percentile(afterAnswer, 50),
    afterAnswerP99: percentile(afterAnswer, 99),
    committedRate,
  };
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres } = await import('../tools/embedded-pg.mjs');
  const { startKafkaPeer } = await import('../tools/kafka-peer.mjs');
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-search-${tag}`;
  const blobDir = `/tmp/dtp-bench-search-blobs-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const peer = await startKafkaPeer({ log: (l) => process.stderr.write(`# ${l}\n`) });
  const servers: ChildProcess[] = [];
  try {
    for (const name of ['bench_auth', 'bench_platform', 'bench_search']) await ensureDatabase(withDatabase(pg.url, name));
    const env = { BENCH_PG_URL: pg.url, BENCH_BLOB_DIR: blobDir, BENCH_KAFKA: peer.brokers };
    const a = await startServer('platform', env);
    servers.push(a.child);
    const b = await startServer('search', { ...env, BENCH_JWKS: `${a.urls.auth}/.well-known/jwks.json` });
    servers.push(b.child);
    const urls = { ...a.urls, ...b.urls } as Urls;
    const searchDb = withDatabase(pg.url, 'bench_search');
    const platformDb = withDatabase(pg.url, 'bench_platform');

    // 1. Reads.
    const ds = createDataSource(searchDbOptions({ DATABASE_URL: searchDb, DB_POOL_SIZE: 4 }));
    await ds.initialize();
    const repo = new ReadModelRepository(ds);
    const ids: string[] = [];
    for (let i = 0; i < READ_IDS; i += 1) {
      const r = record(i);
      await repo.upsert(r, 1);
      ids.push(r.diamond_id);
    }
    await ds.destroy();
    const reader = await credentials(urls.auth, 'non_participant', AUDIENCES.search);
    const check = await fetch(`${urls.search}/v1/diamonds/${ids[0]}`, { headers: { authorization: reader } });
    if (check.status !== 200) throw new Error(`search answered ${check.status} to the warm-up read`);
    await readLoad(urls.search, ids, reader, 2); // warm-up (JIT, pools, JWKS)
    await readLoad(urls.anchor, ids, null, 2);
    // The search process serves both the service and the anchor: its CPU time during each phase, per answer, and
    // PostgreSQL's the same way (it serves nothing else then).
    const phase = async (url: string, token: string | null) => {
      const cpu0 = processCpuSeconds(b.child.pid!);
      const db0 = postgresCpuSeconds();
      const result = await readLoad(url, ids, token, DURATION);
      const answers = Math.max(1, result['2xx']);
      return { result, cpu: (processCpuSeconds(b.child.pid!) - cpu0) / answers, dbCpu: (postgresCpuSeconds() - db0) / answers };
    };
    const first = await phase(urls.anchor, null);
    const measured = await phase(urls.search, reader);
    const second = await phase(urls.anchor, null);
    const [service, anchor1, anchor2] = [measured.result, first.result, second.result];
    const non2xx = service.non2xx + service.errors;
    if (non2xx > 0) process.stderr.write(`# search reads: ${non2xx} non-2xx or errors\n`);
    const anchorRps = (anchor1.requests.average + anchor2.requests.average) / 2;
    const anchorP99 = (anchor1.latency.p99 + anchor2.latency.p99) / 2;
    const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
    report({
      name: 'search.read.throughput',
      value: round(service.requests.average, 0),
      unit: 'req/s',
      anchor: round(anchorRps, 0),
      ratio: round(service.requests.average / anchorRps),
    });
    // Microseconds per answer, search against the mean of the anchor's two phases.
    for (const [figure, of] of [
      ['server_cpu_per_request', 'cpu'],
      ['db_cpu_per_request', 'dbCpu'],
    ] as const) {
      const anchorUs = ((first[of] + second[of]) / 2) * 1e6;
      report({
        name: `search.read.${figure}`,
        value: round(measured[of] * 1e6, 1),
        unit: 'us',
        anchor: round(anchorUs, 1),
        ratio: round((measured[of] * 1e6) / anchorUs),
      });
    }
    report({ name: 'search.read.p99', value: service.latency.p99, unit: 'ms', anchor: round(anchorP99, 1), ratio: round(service.latency.p99 / anchorP99) });

    // 2. Visibility lag under a steady registration rate, through Kafka, at two rates (BENCH_LAG_S=0: reads only).
    const producer = await credentials(urls.auth, 'producer', AUDIENCES.platform);
    // Warm-up, not measured: BENCH_LAG_WARMUP_S at the first rate. A platform that has registered nothing yet compiles
    // its registration path (JIT) during the first seconds of load, and on 2 cores that held commit -> published at
    // 100 to 250 ms for about 3 s, which was most of the p99 of a 10 s window (BENCH_LAG_TIMELINE=1 shows it).
    if (LAG_SECONDS > 0) await steadyRegistrations(urls.platform, producer, WARMUP_SECONDS > 0 ? LAG_RATE : 20, Math.max(WARMUP_SECONDS, 1));
    for (const rate of LAG_SECONDS > 0 ? [LAG_RATE, LAG_RATE_HIGH] : []) {
      const lag = await visibilityLag(urls.platform, producer, platformDb, searchDb, rate);
      const suffix = rate === LAG_RATE ? '' : ` at ${rate}/s`;
      report({ name: `search.visibility_lag.p50${suffix}`, value: round(lag.p50, 1), unit: 'ms', anchor: null, ratio: null });
      report({ name: `search.visibility_lag.p99${suffix}`, value: round(lag.p99, 1), unit: 'ms', anchor: null, ratio: null });
      report({ name: `search.visibility_lag_after_answer.p50${suffix}`, value: round(lag.afterAnswerP50, 1), unit: 'ms', anchor: null, ratio: null });
      report({ name: `search.visibility_lag_after_answer.p99${suffix}`, value: round(lag.afterAnswerP99, 1), unit: 'ms', anchor: null, ratio: null });
      report({ name: `search.commit_to_published.p99 at ${rate}/s`, value: round(lag.publishP99, 1), unit: 'ms', anchor: null, ratio: null });
      report({ name: `search.published_to_visible.p99 at ${rate}/s`, value: round(lag.consumeP99, 1), unit: 'ms', anchor: null, ratio: null });
      report({
        name: `search.lag_committed_rate at ${rate}/s (anchor: the rate offered)`,
        value: round(lag.committedRate, 1),
        unit: 'registrations/s',
        anchor: rate,
        ratio: round(lag.committedRate / rate, 3),
      });
    }
  } finally {
    for (const server of servers.reverse()) {
      if (server.exitCode !== null) continue;
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await peer.stop();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
  }
};

if (process.env[SERVER_FLAG]) {
  serve(process.env[SERVER_FLAG]).catch((err) => {
    process.stderr.write(`search bench server failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

export default bench;
