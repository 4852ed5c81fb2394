/**
 * Scale-out benchmark (`npm run bench -- scale`, #17 item 4): the same workload with 1 and with 2 replicas of
 * platform and of search, each replica its own process (`apps/<service>/src/main.ts`), over the Kafka peer (topics
 * of 4 partitions), one embedded PostgreSQL (durable settings). Each phase gets fresh databases, topics and groups.
 * The phases run 1x, 2x, 2x, 1x (BENCH_SCALE_ROUNDS of each, default 2), each figure the mean of its phases, and a
 * `#` line gives every phase's registration rate in the order run.
 *
 * Per phase:
 *  - partition assignment: how many of platform.diamonds.v1's partitions each search replica holds
 *    (`consumer_assigned_partitions`); the replicas of a group must split them;
 *  - registration throughput: autocannon against every platform replica at once (BENCH_REG_CONNECTIONS, default 32, in all,
 *    BENCH_DURATION_S seconds, default 10), after BENCH_SCALE_WARMUP_S (30) seconds of the same load;
 *  - search read throughput: autocannon against every search replica at once (64 connections in all);
 *  - visibility lag at BENCH_LAG_RATE (default 200) registrations/s for BENCH_LAG_S (default 10) s, spread over
 *    the platform replicas: commit -> visible in search (the outbox row's created_at to the read-model row's
 *    updated_at, one PostgreSQL clock), with its split commit -> published -> visible;
 *  - no duplicate effects: search holds every diamond at platform's revision, nothing parked, the relay published
 *    from exactly one replica (`outbox_relay_leader`).
 *  - 2x only: the registration load on both platform replicas and on the first alone, turn about
 *    (`scale.registration.throughput.2x_both_loaded`, BENCH_SCALE_TURNS turns each, default 4, of BENCH_SCALE_TURN_S
 *    counted seconds, default 2): the same processes in both, so what splitting the load costs (contention between
 *    replicas), apart from the machine's spells and from what a second set of processes costs at all.
 * Figures: scale.*.1x and scale.*.2x, the 2x ones with the 1x figure as anchor and the ratio 2x/1x. On a 2-core
 * machine the ceiling is the machine: the figure that matters is that the second replica takes its share.
 * Evidence for where registration time goes (#36 part 1), per phase: CPU per registration in the platform replicas
 * and in PostgreSQL (`scale.registration.*_cpu_per_request`: contention shows as more CPU per request at 2x),
 * how busy the whole machine was (`machine_busy`: near 1, nothing else can be read from the phase), a `#` line
 * with what PostgreSQL's active backends of platform's database waited on (Lock:* is contention), and what a
 * platform or search replica uses with nothing to do (`scale.idle_cpu_per_replica`, over BENCH_IDLE_S seconds
 * before the load, 5 s after the warm-up registration): every replica pays it, so it is what a second replica costs
 * on the same cores before any work.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type autocannon from 'autocannon';
import { Client } from 'pg';
import { ensureDatabase, withDatabase } from '@dtp/database';
import type { Benchmark, Figure } from './run';
import { AUDIENCES, loadAll, mean, percentile, postgresCpuSeconds, postJson, q, Replica, round, roughBody, sleep, stackEnv, token } from './support';
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const LAG_RATE = Number(process.env.BENCH_LAG_RATE ?? 200);
const LAG_SECONDS = Number(process.env.BENCH_LAG_S ?? 10);
/** Turns each of the 2x phase's interleaved comparison, both replicas loaded or the first alone (BENCH_SCALE_TURNS, 4; 0 skips it). */
const TURNS = Number(process.env.BENCH_SCALE_TURNS ?? 4);
/** A turn's counted seconds (BENCH_SCALE_TURN_S, default 2). */
const TURN_S = Number(process.env.BENCH_SCALE_TURN_S ?? 2);
/**
 * Phases of each replica count, run 1x, 2x, 2x, 1x, 1x, 2x, ... (BENCH_SCALE_ROUNDS, default 2; 1 runs 1x then 2x
 * once, as before 2026-12-06); each figure is the mean over its phases.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_SCALE_ROUNDS ?? 2));
/**
 * Registration load before the registration figures, every platform replica at once (BENCH_SCALE_WARMUP_S, default
 * 30; 2 until 2026-12-06). Fresh replicas under load get cheaper per registration for tens of seconds, and two of
 * them, each with half the load, take longer to get there: after 2 s the 2x phase's 10 s measured 0.69 to 0.90 of
 * 1x in four runs (0.70 in one after 10 s), after 30 s 0.83 to 1.14 in five, mean 0.98 (docs/events.md, "Scale-out
 * benchmark"). A replica in service has long been warm; the figure is about replicas, not their first seconds.
 */
const WARMUP_S = Number(process.env.BENCH_SCALE_WARMUP_S ?? 30);
/** Registration clients in all, split between the platform replicas (default 32). */
const REG_CONNECTIONS = Number(process.env.BENCH_REG_CONNECTIONS ?? 32);
const DIAMOND_TOPIC = 'platform.diamonds.v1';

interface PhaseResult {
  registration: { rps: number; p99: number; platformCpuUs: number; postgresCpuUs: number; machineBusy: number; waits: string };
  reads: { rps: number; p99: number };
  lag: { p50: number; p99: number; publishP99: number; consumeP99: number };
  partitions: number[];
  leaders: number;
  duplicates: number;
  /** CPU of each platform and search replica while nothing was asked of them, in cores (mean over the replicas). */
  idleCores: number;
  /** 2x only: registrations per second with the load on both platform replicas and on the first alone, turn about. */
  turns?: { both: number; one: number };
}

/** Rough registrations written and the statements that wrote them, over the platform replicas (RegistrationWriter's histogram). */
async function rowsPerStatement(platforms: Replica[]): Promise<{ sum: number; count: number }> {
  const each = await Promise.all(
    platforms.map(async (p) => ({
      sum: (await p.metric('platform_registrations_per_statement_sum')) ?? 0,
      count: (await p.metric('platform_registrations_per_statement_count')) ?? 0,
    })),
  );
  return { sum: each.reduce((a, e) => a + e.sum, 0), count: each.reduce((a, e) => a + e.count, 0) };
}

/** How long the replicas' CPU is measured with nothing asked of them, after 5 s to settle (BENCH_IDLE_S, default 10). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_S ?? 10);

/**
 * Platform's environment: the service's own fetch wait (KAFKA_MAX_WAIT_MS unset: 100 ms), as deployed, unless the
 * caller sets one. Its consumers read gis's topics and auth's participants, which no figure here depends on; the
 * short wait is for search's visibility lag, on a mock broker that holds an empty fetch for the whole wait. At 10 ms
 * each platform replica spent about 0.05 cores on empty fetches, loaded or not, which a real broker's wait and the
 * service's default do not cost.
 */
function platformEnv(env: Record<string, string>): Record<string, string> {
  if (process.env.KAFKA_MAX_WAIT_MS !== undefined) return env;
  const { KAFKA_MAX_WAIT_MS: _shortWait, ...rest } = env;
  return rest;
}

async function phase(replicas: 1 | 2, pgUrl: string, brokers: string, freePort: () => Promise<number>): Promise<PhaseResult> {
  const tag = `scale${replicas}x-${process.pid}-${randomBytes(3).toString('hex')}`;
  const blobDir = `/tmp/dtp-bench-${tag}-blobs`;
  const dbs = {
    auth: withDatabase(pgUrl, `${tag.replace(/-/g, '_')}_auth`),
    platform: withDatabase(pgUrl, `${tag.replace(/-/g, '_')}_platform`),
    search: withDatabase(pgUrl, `${tag.replace(/-/g, '_')}_search`),
  };
  for (const db of Object.values(dbs)) await ensureDatabase(db);
  const authPort = await freePort();
  const common = (db: string): Record<string, string> => ({
    ...stackEnv({ db, authPort, blobDir, brokers, tag }),
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    KAFKA_MAX_WAIT_MS: process.env.KAFKA_MAX_WAIT_MS ?? '10',
    TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
    TOKEN_RATE_LIMIT_PER_IP: '100000000',
  });
  const auth = new Replica('auth', 'auth', authPort, common(dbs.auth));
  const platforms: Replica[] = [];
  const searches: Replica[] = [];
  for (let i = 1; i <= replicas; i += 1) {
    platforms.push(new Replica(`platform-${i}`, 'platform', await freePort(), platformEnv(common(dbs.platform))));
    searches.push(new Replica(`search-${i}`, 'search', await freePort(), common(dbs.search)));
  }
  const all = [auth, ...platforms, ...searches];
  try {
    await auth.start();
    // One at a time: two replicas migrating one database at the same moment is not what this measures.
    for (const r of [...platforms, ...searches]) await r.start();
    const producer = await token(auth.url, 'producer', AUDIENCES.platform);
    const reader = await token(auth.url, 'non_participant', AUDIENCES.search);
    // Platform must know the producer (its onboarding event consumed) before anything is measured: until then each
    // registration takes the slow path (its own transaction, serialised per participant on an advisory lock, the
    // provenance fixed later). With 2 replicas the group's rebalance delays that event by seconds, and a phase that
    // began before it measured that path (Lock:advisory waits, 65 registrations/s once).
    const producerId = (JSON.parse(Buffer.from(producer.split('.')[1], 'base64url').toString('utf8')) as { participant_id: string }).participant_id;
    for (const until = Date.now() + 60_000; ; await sleep(100)) {
      if (
        (await q<{ n: number }>(dbs.platform, `SELECT count(*)::int AS n FROM participants WHERE participant_id = '${producerId.replace(/'/g, "''")}'`))[0].n >
        0
      )
        break;
      if (Date.now() > until) throw new Error(`${replicas}x: platform never learnt of the producer ${producerId}`);
    }

    // The topic exists once something is published; then the search replicas split its partitions.
    await postJson(`${platforms[0].url}/diamonds/rough/create`, roughBody(`warm-${tag}`), { authorization: producer });
    let partitions: number[] = [];
    // All 4 partitions held, and every replica holding some.
    const split = () => partitions.reduce((a, b) => a + b, 0) >= 4 && partitions.every((p) => p > 0);
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(250)) {
      partitions = await Promise.all(searches.map(async (s) => (await s.metric('consumer_assigned_partitions', `topic="${DIAMOND_TOPIC}"`)) ?? 0));
      if (split()) break;
    }
    if (!split()) {
      throw new Error(
        `${replicas}x: the search replicas hold ${partitions.join(', ')} of ${DIAMOND_TOPIC}'s partitions after 60 s\n${all.map((r) => r.logTail()).join('\n')}`,
      );
    }
    process.stderr.write(`# ${replicas}x: ${DIAMOND_TOPIC} partitions held per search replica: ${partitions.join(', ')}\n`);

    // What a replica costs with nothing to do (its consumers' fetches, timers): paid once per replica, whatever the load.
    const services = [...platforms, ...searches];
    await sleep(5000); // the warm-up registration reaches search, and its custody checkpoint
    const idleBefore = services.map((r) => r.cpuSeconds());
    const idleStarted = Date.now();
    await sleep(IDLE_SECONDS * 1000);
    const idlePerReplica = services.map((r, i) => (r.cpuSeconds() - idleBefore[i]) / ((Date.now() - idleStarted) / 1000));
    const idleCores = mean(idlePerReplica);
    process.stderr.write(`# ${replicas}x idle: CPU of each replica: ${services.map((r, i) => `${r.name} ${round(idlePerReplica[i], 3)}`).join(', ')} cores\n`);

    // Registration throughput, every platform replica at once. Each request registers a diamond of its own.
    let n = 0;
    const registrations = (prefix: string) => (): autocannon.Options['requests'] => [
      {
        method: 'POST',
        path: '/diamonds/rough/create',
        headers: { 'content-type': 'application/json', authorization: producer },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(roughBody(`${prefix}-${tag}-${n++}`)) }),
      },
    ];
    await loadAll(
      platforms.map((p) => p.url),
      REG_CONNECTIONS,
      WARMUP_S,
      registrations('w'),
    );
    // Evidence of where a registration's time goes: CPU per registration in the platform replicas and in PostgreSQL,
    // how busy the machine was, and what PostgreSQL's active backends of platform's database waited on.
    const perReplicaBefore = platforms.map((p) => p.cpuSeconds());
    const statementsBefore = await rowsPerStatement(platforms);
    const cpuBefore = perReplicaBefore.reduce((a, b) => a + b, 0);
    const pgCpuBefore = postgresCpuSeconds();
    const machineBefore = machineTicks();
    const sampler = sampleWaits(pgUrl, dbName(dbs.platform));
    // BENCH_REG_FIRST_ONLY=1: the load goes to the first replica only (what the others burn meanwhile, per replica, is
    // in the `#` line below).
    const targets = process.env.BENCH_REG_FIRST_ONLY === '1' ? platforms.slice(0, 1) : platforms;
    const registration = await loadAll(
      targets.map((p) => p.url),
      REG_CONNECTIONS,
      DURATION,
      registrations('r'),
    );
    const waits = await sampler.stop();
    const registered = registration.rps * DURATION;
    const platformCpuUs = ((platforms.reduce((a, p) => a + p.cpuSeconds(), 0) - cpuBefore) * 1e6) / Math.max(registered, 1);
    const postgresCpuUs = ((postgresCpuSeconds() - pgCpuBefore) * 1e6) / Math.max(registered, 1);
    const machineAfter = machineTicks();
    const machineBusy = 1 - (machineAfter.idle - machineBefore.idle) / Math.max(machineAfter.total - machineBefore.total, 1);
    process.stderr.write(
      `# ${replicas}x registrations: CPU of each platform replica meanwhile: ${platforms.map((p, i) => `${round((p.cpuSeconds() - perReplicaBefore[i]) / DURATION, 2)} cores`).join(', ')}\n`,
    );
    const statementsAfter = await rowsPerStatement(platforms);
    const written = statementsAfter.sum - statementsBefore.sum;
    const statements = statementsAfter.count - statementsBefore.count;
    process.stderr.write(
      `# ${replicas}x registrations: ${statements} statements, ${round(written / Math.max(statements, 1), 2)} registrations per statement\n`,
    );
    process.stderr.write(`# ${replicas}x registrations: PostgreSQL backends of platform's database, mean active per wait: ${waits}\n`);
    if (registration.bad > 0) process.stderr.write(`# ${replicas}x registrations: ${registration.bad} non-2xx or errors\n`);

    // 2x: the same replicas with the load on both and on the first alone, turn about (TURNS turns each, 0.5 s not
    // counted, then TURN_S counted), so that both see the same spells of the machine. Splitting the load is then the
    // only difference: contention between the replicas (rows, locks, group commit in two processes, the relay)
    // would show here; what a second set of processes costs at all would not (it is in both).
    let turns: PhaseResult['turns'];
    if (replicas === 2 && TURNS > 0) {
      const rates = { both: [] as number[], one: [] as number[] };
      for (let i = 0; i < 2 * TURNS; i++) {
        const which = i % 2 === 0 ? 'both' : 'one';
        const urls = (which === 'both' ? platforms : platforms.slice(0, 1)).map((p) => p.url);
        await loadAll(urls, REG_CONNECTIONS, 0.5, registrations(`s${i}`));
        const r = await loadAll(urls, REG_CONNECTIONS, TURN_S, registrations(`t${i}`));
        if (r.bad > 0) throw new Error(`2x turn ${i} (${which}): ${r.bad} non-2xx or errors`);
        rates[which].push(r.rps);
      }
      turns = { both: mean(rates.both), one: mean(rates.one) };
      process.stderr.write(
        `# 2x turns (${TURNS} x ${TURN_S} s each): registrations/s, both replicas loaded ${rates.both.map((x) => Math.round(x)).join(', ')}; ` +
          `the first alone ${rates.one.map((x) => Math.round(x)).join(', ')}\n`,
      );
    }
    await converge(dbs.platform, dbs.search);

    // Search reads over what was registered, every search replica at once.
    const ids = (await q<{ diamond_id: string }>(dbs.platform, 'SELECT diamond_id FROM diamonds ORDER BY random() LIMIT 2000')).map((r) => r.diamond_id);
    let k = 0;
    const readRequest = () => [
      {
        method: 'GET' as const,
        headers: { authorization: reader },
        setupRequest: (req: object) => ({ ...req, path: `/v1/diamonds/${ids[k++ % ids.length]}` }),
      },
    ];
    await loadAll(
      searches.map((s) => s.url),
      64,
      2,
      readRequest,
    );
    const reads = await loadAll(
      searches.map((s) => s.url),
      64,
      DURATION,
      readRequest,
    );
    if (reads.bad > 0) process.stderr.write(`# ${replicas}x reads: ${reads.bad} non-2xx or errors\n`);

    // Visibility lag at a steady rate, spread over the platform replicas.
    const [{ before }] = await q<{ before: string }>(dbs.platform, 'SELECT coalesce(max(id), 0)::text AS before FROM outbox');
    const inflight: Promise<unknown>[] = [];
    const started = Date.now();
    for (let i = 0; i < LAG_RATE * LAG_SECONDS; i += 1) {
      const wait = started + (i * 1000) / LAG_RATE - Date.now();
      if (wait > 0) await sleep(wait);
      const target = platforms[i % platforms.length];
      inflight.push(postJson(`${target.url}/diamonds/rough/create`, roughBody(`lag-${tag}-${i}`), { authorization: producer }).catch(() => undefined));
    }
    await Promise.all(inflight);
    await converge(dbs.platform, dbs.search);
    const rows = await q<{ t: string; p: string; v: string }>(
      dbs.platform,
      `SELECT (extract(epoch FROM created_at) * 1000)::float8::text AS t, (extract(epoch FROM published_at) * 1000)::float8::text AS p, key AS v
       FROM outbox WHERE id > ${Number(before)} AND event_type = 'diamond.upserted'`,
    );
    const visible = new Map(
      (
        await q<{ diamond_id: string; t: string }>(
          dbs.search,
          'SELECT diamond_id, (extract(epoch FROM updated_at) * 1000)::float8::text AS t FROM search_diamonds',
        )
      ).map((r) => [r.diamond_id, Number(r.t)]),
    );
    const measured = rows.filter((r) => visible.has(r.v));
    const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
    const total = sorted(measured.map((r) => visible.get(r.v)! - Number(r.t)));
    const publish = sorted(measured.map((r) => Number(r.p) - Number(r.t)));
    const consume = sorted(measured.map((r) => visible.get(r.v)! - Number(r.p)));

    // No duplicate effects, one relay leader.
    const platformRevisions = new Map(
      (await q<{ diamond_id: string; revision: string }>(dbs.platform, 'SELECT diamond_id, revision FROM diamonds')).map((r) => [r.diamond_id, r.revision]),
    );
    const held = await q<{ key: string; revision: string }>(dbs.search, `SELECT key, revision FROM consumer_state WHERE consumer = 'search'`);
    const mismatched = held.filter((r) => platformRevisions.has(r.key) && platformRevisions.get(r.key) !== r.revision).length;
    const [{ parked }] = await q<{ parked: number }>(dbs.search, 'SELECT count(*)::int AS parked FROM parked_events');
    if (mismatched > 0 || parked > 0) throw new Error(`${replicas}x: ${mismatched} diamonds at another revision in search, ${parked} parked`);
    const leaders = (await Promise.all(platforms.map((p) => p.metric('outbox_relay_leader')))).filter((v) => v === 1).length;
    const duplicates = (await Promise.all(searches.map((s) => s.metric('consumer_duplicates_total', `topic="${DIAMOND_TOPIC}"`)))).reduce<number>(
      (a, b) => a + (b ?? 0),
      0,
    );
    return {
      registration: { rps: registration.rps, p99: registration.p99, platformCpuUs, postgresCpuUs, machineBusy, waits },
      turns,
      idleCores,
      reads: { rps: reads.rps, p99: reads.p99 },
      lag: { p50: percentile(total, 50), p99: percentile(total, 99), publishP99: percentile(publish, 99), consumeP99: percentile(consume, 99) },
      partitions,
      leaders,
      duplicates,
    };
  } finally {
    for (const r of all.reverse()) await r.stop().catch(() => undefined);
    await rm(blobDir, { recursive: true, force: true });
  }
}

const dbName = (url: string) => new URL(url).pathname.slice(1);

/** The machine's CPU ticks, all and idle (/proc/stat's first line; idle includes iowait). */
function machineTicks(): { total: number; idle: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { total: cpu.reduce((a, b) => a + b, 0), idle: (cpu[3] ?? 0) + (cpu[4] ?? 0) };
}

/**
 * Samples pg_stat_activity every 20 ms while the load runs: for the backends of one database that are active, what
 * each waits on (`CPU` when it waits on nothing). stop() gives the mean number of active backends per wait, the
 * largest first: Lock:* is row or advisory locks (contention between requests or replicas), LWLock:WAL* and
 * IO:WAL* the commit path, Client:ClientRead the backend waiting for the application.
 */
function sampleWaits(pgUrl: string, database: string): { stop: () => Promise<string> } {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const client = new Client({ connectionString: pgUrl });
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ w: string; n: number }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w, count(*)::int AS n
         FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`,
        [database],
      );
      samples += 1;
      for (const r of rows) counts.set(r.w, (counts.get(r.w) ?? 0) + r.n);
      await sleep(20);
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const mean = [...counts.entries()].map(([w, n]) => [w, n / Math.max(samples, 1)] as const).sort((a, b) => b[1] - a[1]);
      return mean.length ? mean.map(([w, m]) => `${w} ${m.toFixed(2)}`).join(', ') : 'none active';
    },
  };
}

/** Waits until search holds every diamond platform holds (at most 60 s). */
async function converge(platformDb: string, searchDb: string): Promise<void> {
  for (const until = Date.now() + 60_000; Date.now() < until; await sleep(250)) {
    const [{ n }] = await q<{ n: number }>(platformDb, 'SELECT count(*)::int AS n FROM diamonds');
    const [{ m }] = await q<{ m: number }>(searchDb, 'SELECT count(*)::int AS m FROM search_diamonds WHERE record IS NOT NULL');
    if (m >= n) return;
  }
  throw new Error('search did not converge within 60 s');
}

/**
 * One phase's figures from ROUNDS phases of the same replica count: each figure's mean over them, except partitions
 * (the fewest any search replica held, each replica's own), relay leaders (the most in any phase) and duplicates (all);
 * the wait lines joined.
 */
function combined(phases: PhaseResult[]): PhaseResult {
  const over = (f: (p: PhaseResult) => number) => mean(phases.map(f));
  return {
    registration: {
      rps: over((p) => p.registration.rps),
      p99: over((p) => p.registration.p99),
      platformCpuUs: over((p) => p.registration.platformCpuUs),
      postgresCpuUs: over((p) => p.registration.postgresCpuUs),
      machineBusy: over((p) => p.registration.machineBusy),
      waits: phases.map((p) => p.registration.waits).join(' | '),
    },
    reads: { rps: over((p) => p.reads.rps), p99: over((p) => p.reads.p99) },
    lag: {
      p50: over((p) => p.lag.p50),
      p99: over((p) => p.lag.p99),
      publishP99: over((p) => p.lag.publishP99),
      consumeP99: over((p) => p.lag.consumeP99),
    },
    partitions: phases.map((p) => Math.min(...p.partitions)),
    leaders: Math.max(...phases.map((p) => p.leaders)),
    duplicates: phases.reduce((a, p) => a + p.duplicates, 0),
    idleCores: over((p) => p.idleCores),
    turns: phases.every((p) => p.turns !== undefined) ? { both: over((p) => p.turns!.both), one: over((p) => p.turns!.one) } : undefined,
  };
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres, freePort } = await import('../tools/embedded-pg.mjs');
  const { startKafkaPeer } = await import('../tools/kafka-peer.mjs');
  const dataDir = `/tmp/dtp-bench-scale-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const peer = await startKafkaPeer({ log: (l) => process.stderr.write(`# ${l}\n`) });
  try {
    // 1x, 2x, 2x, 1x, ... (ROUNDS phases of each): each phase's figures depend on the spell the machine was in while
    // it ran, and a slow spell drifts; taken this way round, a drift over the run weighs on both equally.
    const order = Array.from({ length: 2 * ROUNDS }, (_, i) => (i % 4 === 0 || i % 4 === 3 ? 1 : 2) as 1 | 2);
    const ran: { replicas: 1 | 2; result: PhaseResult }[] = [];
    for (const replicas of order) ran.push({ replicas, result: await phase(replicas, pg.url, peer.brokers, freePort) });
    if (ROUNDS > 1) {
      const rates = ran.map(({ replicas, result }) => `${replicas}x ${Math.round(result.registration.rps)}`);
      process.stderr.write(`# registrations/s by phase, in the order run: ${rates.join(', ')}\n`);
    }
    const of = (replicas: 1 | 2) => combined(ran.filter((r) => r.replicas === replicas).map((r) => r.result));
    const one = of(1);
    const two = of(2);
    const pair = (name: string, unit: string, a: number, b: number, d = 1) => {
      const figures: Figure[] = [
        { name: `${name}.1x`, value: round(a, d), unit, anchor: null, ratio: null },
        { name: `${name}.2x (anchor: 1x)`, value: round(b, d), unit, anchor: round(a, d), ratio: a > 0 ? round(b / a, 3) : null },
      ];
      figures.forEach(report);
    };
    pair('scale.registration.throughput', 'req/s', one.registration.rps, two.registration.rps, 0);
    if (two.turns) {
      const { both, one: alone } = two.turns;
      report({
        name: 'scale.registration.throughput.2x_both_loaded (anchor: 2x, the first alone, turn about)',
        value: round(both, 0),
        unit: 'req/s',
        anchor: round(alone, 0),
        ratio: round(both / alone, 3),
      });
    }
    pair('scale.registration.p99', 'ms', one.registration.p99, two.registration.p99);
    pair('scale.registration.platform_cpu_per_request', 'us', one.registration.platformCpuUs, two.registration.platformCpuUs, 0);
    pair('scale.registration.postgres_cpu_per_request', 'us', one.registration.postgresCpuUs, two.registration.postgresCpuUs, 0);
    pair('scale.registration.machine_busy', 'fraction', one.registration.machineBusy, two.registration.machineBusy, 3);
    pair('scale.idle_cpu_per_replica', 'cores', one.idleCores, two.idleCores, 3);
    pair('scale.search_read.throughput', 'req/s', one.reads.rps, two.reads.rps, 0);
    pair('scale.search_read.p99', 'ms', one.reads.p99, two.reads.p99);
    pair(`scale.visibility_lag.p50 at ${LAG_RATE}/s`, 'ms', one.lag.p50, two.lag.p50);
    pair(`scale.visibility_lag.p99 at ${LAG_RATE}/s`, 'ms', one.lag.p99, two.lag.p99);
    pair('scale.commit_to_published.p99', 'ms', one.lag.publishP99, two.lag.publishP99);
    pair('scale.published_to_visible.p99', 'ms', one.lag.consumeP99, two.lag.consumeP99);
    report({
      name: 'scale.search.partitions_per_replica.2x (min of the replicas; anchor: 4 partitions / 2)',
      value: Math.min(...two.partitions),
      unit: 'partitions',
      anchor: 2,
      ratio: round(Math.min(...two.partitions) / 2, 3),
    });
    report({ name: 'scale.platform.relay_leaders.2x', value: two.leaders, unit: 'replicas', anchor: 1, ratio: two.leaders });
    pair('scale.search.duplicate_deliveries', 'events', one.duplicates, two.duplicates, 0);
  } finally {
    await peer.stop();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

export default bench;
