/**
 * Webhook delivery benchmark (`npm run bench -- webhooks`; docs/webhooks.md).
 *
 * Starts an embedded PostgreSQL (durable settings, throw-away data dir), auth + platform in this process (in-process
 * event bus, the relay; the load generator too), the delivery worker as a second platform replica in its own process
 * (WEBHOOK_WORKER_ENABLED=false on the first, as a deployment that keeps delivery off its API replicas would;
 * BENCH_WEBHOOK_WORKER=inline runs it inside the API replica instead) and local HTTP receivers, each its own process
 * (node:http, answering 204). The worker replica is woken by the API replica's commits through the outbox NOTIFY.
 *  - `webhooks.commit_to_receiver.p50` / `.p99`: one producer with one webhook registers rough diamonds at
 *    BENCH_WEBHOOK_RATE per second (default 200) for BENCH_WEBHOOK_SECONDS (default 10); for each event, the time from
 *    its `time` (the record's system_timestamp, set in the transaction just before the commit) to the receiver getting
 *    it. Goal (issue #33): p99 under 1 s. `webhooks.live_rate`: the registration rate reached.
 *  - `webhooks.catch_up_rate`: the receiver is down for BENCH_WEBHOOK_OUTAGE_SECONDS (default 30; the issue asks about
 *    5 minutes: 300) while registrations go on at the same rate; once it is back, events delivered per second until the
 *    backlog is gone. Deliveries are retried every BENCH_WEBHOOK_RETRY_MS (default 1000; the default schedule would add
 *    its back-off wait, up to 5 minutes after a few failures, before the catch-up starts): this measures how fast a
 *    backlog drains, not the schedule. Anchor: the live rate.
 *  - `webhooks.registration_rate.10_webhooks`: registrations per second (32 in flight, BENCH_WEBHOOK_SECONDS) of a
 *    producer with 10 webhooks subscribed to every event (10 deliveries per registration, delivered meanwhile), against
 *    the anchor: a producer's rate with none (the event log is written either way). Goal: under 10 % lower.
 *    BENCH_WEBHOOK_CPUS=split runs delivery (worker and receivers) on CPU 1 and the rest on CPU 0, as a deployment
 *    with delivery replicas of its own would: the database stays shared.
 *  - `webhooks.delivery_rate.10_webhooks`: deliveries per second in that phase, from its start until every delivery of
 *    it arrived (the anchor is then measured again, and the mean of its two runs used).
 *  - `webhooks.delivered_registration_rate.10_webhooks`: that phase's registrations per second of the same span (to its
 *    last delivery), against the anchor: what a producer with 10 webhooks can keep up with no backlog growing.
 *  - `webhooks.wal_bytes_per_registration.10_webhooks`: bytes of WAL per registration in that phase, until its last
 *    delivery arrived (each delivery's claim and outcome included), against the anchor's first run: the database work
 *    delivery adds, a figure the machine's speed hardly moves.
 *  - `webhooks.registration_rate.10_webhooks_recording_only`: the same with the worker replica stopped: what the
 *    registration's own transaction pays for the event and its 10 delivery rows.
 *  - `webhooks.platform_cpu_per_registration.10_webhooks`: CPU time per registration of that phase, its deliveries
 *    included, of this process (auth, the API replica, the load generator), the worker replica and PostgreSQL,
 *    against the same per registration with no webhook: what delivery costs the platform, without the receivers
 *    (a `#` line gives each process's part, the receivers' too: here they share the machine's CPUs, in a
 *    deployment they would not; another splits PostgreSQL's part by whose connections its backends serve: the API
 *    replica's, the worker's, and PostgreSQL's own processes).
 *  - `webhooks.db_cpu_per_delivery.backlog_N`: PostgreSQL's CPU time per delivery while one webhook's backlog of N
 *    pending deliveries (BENCH_WEBHOOK_BACKLOGS, default 200,10000) is claimed and its outcomes stored through the
 *    worker's statements, no HTTP, against the first backlog: flat when a claim reads only what it claims.
 *  - `webhooks.db_cpu_per_delivery.after_N_delivered`: the same for a backlog of 10,000 of a webhook that has had N
 *    deliveries (BENCH_WEBHOOK_DELIVERED, default 50,000; 0 skips it) since the table's last vacuum, each claimed and
 *    stored through the worker's statements: their entries stay in the pending-only indexes until a vacuum. Autovacuum
 *    is off for the table meanwhile, as if it were large enough for N updates to stay under its threshold (20 % of it);
 *    the statistics are taken after them, when nothing is pending, as a worker that keeps up leaves them.
 *  - BENCH_CPU_PROF_DIR=dir writes a CPU profile of the worker replica's whole life (worker.cpuprofile; summarise it
 *    with bench/cpuprofile-summary.mjs).
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { sqlOn, withDatabase } from '@dtp/database';
import { loadConfig } from '@dtp/service-kit';
import { HeldPort } from '@dtp/testing';
import { platformService } from '@dtp/platform';
import { nextClaimSize, WALK_MOVE_EVERY } from '../apps/platform/src/webhooks/delivery-worker';
import { participantEvent, writeParticipantEvents } from '../apps/platform/src/webhooks/participant-events';
import { WebhooksRepository } from '../apps/platform/src/webhooks/webhooks.repository';
import type { Benchmark } from './run';
import { AUDIENCES, inProcessStack, ISSUER, percentile, postgresCpuSeconds, postJson as post, processCpuSeconds, q, round, sleep } from './support';

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
const OUTAGE = Number(process.env.BENCH_WEBHOOK_OUTAGE_SECONDS ?? 30);
const RETRY_MS = Number(process.env.BENCH_WEBHOOK_RETRY_MS ?? 1000);
const INLINE = process.env.BENCH_WEBHOOK_WORKER === 'inline';
/** Backlogs of one webhook for `webhooks.db_cpu_per_delivery` (the first is the anchor). */
const BACKLOGS = (process.env.BENCH_WEBHOOK_BACKLOGS ?? '200,10000').split(',').map(Number);
/** Deliveries of one webhook since the table's last vacuum for `webhooks.db_cpu_per_delivery.after_N_delivered` (0: skip). */
const DELIVERED_SINCE_VACUUM = Number(process.env.BENCH_WEBHOOK_DELIVERED ?? 50_000);
/**
 * `split`: PostgreSQL, auth, platform's API replica and the load generator on CPU 0, the delivery worker replica and
 * the receivers on CPU 1 (taskset), as a deployment that runs delivery on its own machines would, the database
 * shared. Default: everything shares every CPU.
 */
const SPLIT = process.env.BENCH_WEBHOOK_CPUS === 'split';

/** `argv` as spawned, on CPU 1 when the CPUs are split. */
function onDeliveryCpus(argv: string[]): [string, string[]] {
  return SPLIT ? ['taskset', ['-c', '1', ...argv]] : [argv[0], argv.slice(1)];
}

/** The receiver's program: its own process (as an ERP's would be), answering 204 and printing `<subject> <epoch ms>`. */
const RECEIVER = `
const http = require('node:http');
const out = [];
setInterval(() => { if (out.length) process.stdout.write(out.splice(0).join('')); }, 20).unref();
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    out.push(event.subject + ' ' + at + ' ' + Date.parse(event.time) + '\\n');
    res.writeHead(204).end();
  });
});
server.listen(Number(process.argv[1]), process.argv[2], () => process.stdout.write('listening ' + server.address().port + '\\n'));
`;

/**
 * A receiver in a child process; `onEvent` with each event's subject, arrival and the event's `time` (epoch ms: the
 * record's system_timestamp, taken just before its commit); `at`: the port it holds, to go down and come back on.
 */
async function receiver(
  onEvent: (subject: string, at: number, time: number) => void,
  at?: HeldPort,
): Promise<{ url: string; pid: number; close: () => Promise<void> }> {
  const host = at?.host ?? '127.0.0.1';
  const [cmd, args] = onDeliveryCpus([process.execPath, '-e', RECEIVER, String(at?.port ?? 0), host]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let buffer = '';
  const listening = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
    child.stdout!.on('data', (c: Buffer) => {
      buffer += c.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const [a, b, c] = line.split(' ');
        if (a === 'listening') resolve(Number(b));
        else onEvent(a, Number(b), Number(c));
      }
    });
  });
  const p = await listening;
  return {
    url: `http://${host}:${p}/hook`,
    pid: child.pid!,
    close: () =>
      new Promise<void>((r) => {
        child.removeAllListeners('exit');
        child.once('exit', () => r());
        child.kill('SIGKILL');
      }),
  };
}

/** Now, as epoch ms with sub-millisecond precision (the clock the receiver process uses too). */
const now = () => performance.timeOrigin + performance.now();

const bench: Benchmark = async (report) => {
  // every thread of this process, and so PostgreSQL and everything else it starts, on CPU 0
  if (SPLIT) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const delivery = {
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: String(RETRY_MS),
  };
  const stack = await inProcessStack('webhooks', {
    databases: ['bench_claim'],
    platformEnv: { ...delivery, RATE_LIMIT_PER_CLIENT: '1000000', RATE_LIMIT_PER_IP: '1000000', WEBHOOK_WORKER_ENABLED: INLINE ? 'true' : 'false' },
  });
  const closers: (() => Promise<void>)[] = [];
  try {
    const url = stack.platformUrl;
    let stopWorker = async (): Promise<void> => undefined;
    let workerPid: number | undefined;
    if (!INLINE) {
      // BENCH_CPU_PROF_DIR: a CPU profile of the worker replica's whole life (worker.cpuprofile; bench/cpuprofile-summary.mjs)
      const prof = process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF_DIR)}`, '--cpu-prof-name=worker.cpuprofile']
        : [];
      const [cmd, args] = onDeliveryCpus([process.execPath, ...prof, '-r', './tools/register.js', 'apps/platform/src/main.ts']);
      const worker = spawn(cmd, args, {
        cwd: path.resolve(__dirname, '..'),
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          EVENT_TRANSPORT: 'in-process',
          DATABASE_URL: stack.platformDb,
          AUTH_ISSUER: ISSUER,
          AUTH_JWKS_URL: stack.jwksUrl,
          PLATFORM_AUDIENCE: AUDIENCES.platform,
          BLOB_STORE_DIR: stack.blobDir,
          ...delivery,
          WEBHOOK_WORKER_ENABLED: 'true',
        },
      });
      workerPid = worker.pid;
      stopWorker = () =>
        new Promise<void>((r) => {
          if (worker.exitCode !== null || worker.signalCode !== null) return r();
          worker.once('exit', () => r());
          worker.kill('SIGTERM');
        });
      closers.push(() => stopWorker());
    }

    const producer = stack.producer;
    let seq = 0;
    const register = (who: { auth: Record<string, string> }) =>
      post<{ diamond_id: string }>(
        `${url}/diamonds/rough/create`,
        { box_id: 'WEBHOOK-BOX', participant_id: `wh-${seq++}`, participant_timestamp: '2024-03-01T10:00:00Z', rough: { carats: 1.25 } },
        who.auth,
      );
    /**
     * Registrations at `rate` per second for `seconds` (at most 64 in flight: a server that cannot keep up gets them
     * later, and the rate achieved is lower); when each answered (by diamond id).
     */
    const paced = async (who: { auth: Record<string, string> }, rate: number, seconds: number): Promise<Map<string, number>> => {
      const answered = new Map<string, number>();
      const start = performance.now();
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < rate * seconds; i++) {
        const due = start + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        while (inFlight.size >= 64) await Promise.race(inFlight);
        const p: Promise<void> = register(who).then((d) => void answered.set(d.diamond_id, now()));
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p)).catch(() => undefined);
      }
      await Promise.all(inFlight);
      return answered;
    };

    // 1. commit -> receiver at RATE events/s
    const arrived = new Map<string, number>();
    const latency = new Map<string, number>();
    // Its port stays held while it is down (phase 2), so that no other process takes it before it comes back.
    const held = await HeldPort.hold();
    closers.push(() => held.release());
    const live = await receiver((s, at, time) => {
      arrived.set(s, at);
      latency.set(s, at - time);
    }, held);
    closers.push(live.close);
    const p1 = await producer('Webhook Bench');
    const hook = await post<{ webhook_id: string }>(`${url}/webhooks`, { url: live.url }, p1.auth);
    // the worker is up (its process started) once a test delivery arrives
    for (let i = 0; !arrived.has(hook.webhook_id); i++) {
      if (i % 50 === 0) await post(`${url}/webhooks/${hook.webhook_id}/test`, {}, p1.auth);
      if (i > 1200) throw new Error('the delivery worker never delivered a test event');
      await sleep(100);
    }
    await paced(p1, 20, 1); // warm-up
    arrived.clear();
    const answered = await paced(p1, RATE, SECONDS);
    const deadline = performance.now() + 60_000;
    while ([...answered.keys()].some((id) => !arrived.has(id)) && performance.now() < deadline) await sleep(50);
    // From the event's time (its record's system_timestamp, set in the transaction just before the commit) to its
    // arrival: the registration's answer is a worse clock, late whenever the load generator's own loop is busy.
    const lat = [...answered.keys()].map((id) => latency.get(id) ?? Infinity).sort((a, b) => a - b);
    const missing = lat.filter((x) => x === Infinity).length;
    if (missing > 0) throw new Error(`${missing} of ${lat.length} events never reached the receiver`);
    const times = [...answered.values()];
    const liveRate = answered.size / ((Math.max(...times) - Math.min(...times)) / 1000 || SECONDS);
    report({ name: 'webhooks.live_rate', value: round(liveRate, 1), unit: 'events/s', anchor: RATE, ratio: round(liveRate / RATE, 2) });
    if (process.env.BENCH_DEBUG) {
      const t0 = Math.min(...answered.values());
      const bySecond = (m: Iterable<number>) => {
        const b: number[] = [];
        for (const t of m) b[Math.floor((t - t0) / 500)] = (b[Math.floor((t - t0) / 500)] ?? 0) + 1;
        return [...b].map((x) => x ?? 0).join(' ');
      };
      process.stderr.write(`answered per 0.5 s: ${bySecond(answered.values())}\narrived per 0.5 s: ${bySecond(arrived.values())}\n`);
    }
    report({ name: 'webhooks.commit_to_receiver.p50', value: round(percentile(lat, 50), 1), unit: 'ms', anchor: null, ratio: null });
    report({
      name: 'webhooks.commit_to_receiver.p99',
      value: round(percentile(lat, 99), 1),
      unit: 'ms',
      anchor: 1000,
      ratio: round(percentile(lat, 99) / 1000, 3),
    });

    // 2. catch-up after an outage
    await live.close();
    closers.pop();
    arrived.clear();
    const during = await paced(p1, RATE, OUTAGE);
    const back = now();
    const again = await receiver((s, at) => arrived.set(s, at), held);
    closers.push(again.close);
    const until = performance.now() + 30 * 60_000;
    while ([...during.keys()].some((id) => !arrived.has(id)) && performance.now() < until) await sleep(100);
    const drained = Math.max(...[...during.keys()].map((id) => arrived.get(id) ?? Infinity));
    if (!Number.isFinite(drained)) throw new Error('the backlog never drained');
    const catchUp = during.size / ((drained - back) / 1000);
    report({ name: 'webhooks.catch_up_rate', value: round(catchUp, 1), unit: 'events/s', anchor: round(liveRate, 1), ratio: round(catchUp / liveRate, 2) });

    // 3. registration throughput with 10 webhooks subscribed, against none
    const flat = async (who: { auth: Record<string, string> }): Promise<number> => {
      let n = 0;
      const end = performance.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (performance.now() < end) {
            await register(who);
            n += 1;
          }
        }),
      );
      return n / SECONDS;
    };
    /** Bytes of WAL written so far (the whole cluster: what the database has to write, fsync and archive). */
    const wal = async () => Number((await q<{ b: string }>(stack.platformDb, `SELECT (pg_current_wal_lsn() - '0/0')::text AS b`))[0].b);
    const receiverPids: number[] = [];
    /**
     * CPU seconds so far, by process: this one (auth, platform's API replica and the load generator), the worker
     * replica, PostgreSQL (every backend, the worker's included), and the receivers of this phase.
     */
    const cpu = () => ({
      api: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage()),
      worker: workerPid ? processCpuSeconds(workerPid) : 0,
      db: postgresCpuSeconds(),
      receivers: receiverPids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
    });
    type Cpu = ReturnType<typeof cpu>;
    const perRegistration = (a: Cpu, b: Cpu, registrations: number) =>
      Object.fromEntries(Object.entries(b).map(([k, v]) => [k, ((v - a[k as keyof Cpu]) / registrations) * 1e6])) as Cpu;
    const bare = await producer('No Webhooks');
    await flat(bare); // warm-up at full speed
    const walBefore = await wal();
    const cpuBefore = cpu();
    const before = await flat(bare);
    const cpuBare = perRegistration(cpuBefore, cpu(), before * SECONDS);
    const walBare = (await wal()) - walBefore;
    const sinks: number[] = [];
    const withHooks = await producer('Ten Webhooks');
    for (let i = 0; i < 10; i++) {
      const r = await receiver(() => void sinks.push(1));
      closers.push(r.close);
      receiverPids.push(r.pid);
      await post(`${url}/webhooks`, { url: r.url }, withHooks.auth);
    }
    const dbClients = { [process.pid]: 'auth and API replica', ...(workerPid ? { [workerPid]: 'worker' } : {}) };
    const dbBefore = await postgresCpuByClient(stack.platformDb, dbClients);
    const tenStart = now();
    const walTenStart = await wal();
    const cpuTenStart = cpu();
    const withTen = await flat(withHooks);
    // every delivery of that phase made (a worker that lags behind would otherwise slow the anchor measured next)
    const expected = Math.round(withTen * SECONDS) * 10;
    const drainDeadline = performance.now() + 10 * 60_000;
    while (sinks.length < expected && performance.now() < drainDeadline) await sleep(50);
    const drainedIn = (now() - tenStart) / 1000;
    const cpuTen = perRegistration(cpuTenStart, cpu(), withTen * SECONDS);
    const dbAfter = await postgresCpuByClient(stack.platformDb, dbClients);
    if (dbBefore && dbAfter) {
      // per backend, the CPU it used between the two samples (one that started since counts whole), under its owner
      // now; one that ended in between is left out (its last CPU time is not known): counted, so the split says so
      const split: Record<string, number> = {};
      for (const [pid, b] of dbAfter) split[b.who] = (split[b.who] ?? 0) + b.cpu - (dbBefore.get(pid)?.cpu ?? 0);
      const ended = [...dbBefore.keys()].filter((pid) => !dbAfter.has(pid)).length;
      const parts = Object.entries(split).map(([k, v]) => `${k} ${Math.round((v / (withTen * SECONDS)) * 1e6)}`);
      process.stderr.write(
        `# PostgreSQL CPU per registration with 10 webhooks (us), by whose connection: ${parts.join(', ')}` +
          `${ended ? ` (${ended} backends ended in between, left out)` : ''}\n`,
      );
    }
    const deliveryRate = sinks.length / drainedIn;
    // What the platform (API replica with the load generator, worker replica, PostgreSQL) spends per registration,
    // its 10 deliveries included, against a registration with none: the cost of delivery that does not depend on
    // the receivers sharing this machine's CPUs (they would not in a deployment).
    const platformCpu = (c: Cpu) => c.api + c.worker + c.db;
    report({
      name: 'webhooks.platform_cpu_per_registration.10_webhooks',
      value: round(platformCpu(cpuTen), 1),
      unit: 'us',
      anchor: round(platformCpu(cpuBare), 1),
      ratio: round(platformCpu(cpuTen) / platformCpu(cpuBare), 2),
    });
    const us = (c: Cpu) =>
      `API replica and load ${Math.round(c.api)}, worker ${Math.round(c.worker)}, PostgreSQL ${Math.round(c.db)}, receivers ${Math.round(c.receivers)}`;
    process.stderr.write(`# CPU per registration (us): with 10 webhooks: ${us(cpuTen)}; with none: ${us(cpuBare)}\n`);
    report({ name: 'webhooks.delivery_rate.10_webhooks', value: round(deliveryRate, 1), unit: 'deliveries/s', anchor: null, ratio: null });
    const walPerRegistration = ((await wal()) - walTenStart) / (withTen * SECONDS);
    const walPerBare = walBare / (before * SECONDS);
    report({
      name: 'webhooks.wal_bytes_per_registration.10_webhooks',
      value: Math.round(walPerRegistration),
      unit: 'bytes',
      anchor: Math.round(walPerBare),
      ratio: round(walPerRegistration / walPerBare, 2),
    });
    // the anchor measured on both sides (the tables grow as the run goes on): their mean
    const without = (before + (await flat(bare))) / 2;
    report({
      name: 'webhooks.registration_rate.10_webhooks',
      value: round(withTen, 1),
      unit: 'registrations/s',
      anchor: round(without, 1),
      ratio: round(withTen / without, 3),
    });
    // Registrations whose 10 deliveries all arrived, per second, from the phase's start to its last delivery: the rate
    // a producer with 10 webhooks can keep up without a backlog growing. (The rate above alone counts a worker that
    // falls behind as cheaper: what it has not yet delivered when the registrations stop, it delivers after.)
    const delivered = (withTen * SECONDS) / drainedIn;
    report({
      name: 'webhooks.delivered_registration_rate.10_webhooks',
      value: round(delivered, 1),
      unit: 'registrations/s',
      anchor: round(without, 1),
      ratio: round(delivered / without, 3),
    });
    if (!INLINE) {
      // What the transaction itself pays (the event and its 10 delivery rows in the registration's statement), with no
      // delivery going on: the worker replica stopped.
      await stopWorker();
      const recording = await producer('Ten Webhooks, Nobody Delivering');
      for (let i = 0; i < 10; i++) await post(`${url}/webhooks`, { url: `http://127.0.0.1:9/${i}` }, recording.auth);
      const recordingOnly = await flat(recording);
      report({
        name: 'webhooks.registration_rate.10_webhooks_recording_only',
        value: round(recordingOnly, 1),
        unit: 'registrations/s',
        anchor: round(without, 1),
        ratio: round(recordingOnly / without, 3),
      });
    }

    // 4. the database's work per delivery as a webhook's backlog grows
    const claimDb = withDatabase(stack.pgUrl, 'bench_claim');
    await platformService.migrate(loadConfig('platform', platformService.configClass, { PORT: '0', DATABASE_URL: claimDb }), pino({ level: 'warn' }));
    const perDelivery = new Map<number, number>();
    for (const backlog of BACKLOGS) perDelivery.set(backlog, await claimCost(claimDb, backlog));
    const anchor = BACKLOGS[0];
    for (const backlog of BACKLOGS) {
      report({
        name: `webhooks.db_cpu_per_delivery.backlog_${backlog}`,
        value: round(perDelivery.get(backlog)!, 1),
        unit: 'us',
        anchor: round(perDelivery.get(anchor)!, 1),
        ratio: round(perDelivery.get(backlog)! / perDelivery.get(anchor)!, 2),
      });
    }
    if (DELIVERED_SINCE_VACUUM > 0) {
      const after = await claimCost(claimDb, 10_000, DELIVERED_SINCE_VACUUM);
      report({
        name: `webhooks.db_cpu_per_delivery.after_${DELIVERED_SINCE_VACUUM}_delivered`,
        value: round(after, 1),
        unit: 'us',
        anchor: round(perDelivery.get(anchor)!, 1),
        ratio: round(after / perDelivery.get(anchor)!, 2),
      });
    }
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await stack.close();
  }
};

/**
 * CPU seconds so far of each backend of `db`, by its pid, with whose it is: the named process whose connection it
 * serves (found by its client port, through `ss`; `others` for any other client), or `background` for PostgreSQL's
 * own processes (WAL writer, checkpointer, autovacuum). A backend that ends while this reads is left out. Undefined
 * where `ss` is missing.
 */
async function postgresCpuByClient(db: string, owners: Record<number, string>): Promise<Map<number, { who: string; cpu: number }> | undefined> {
  let sockets: string;
  try {
    sockets = execFileSync('ss', ['-tnpH'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  } catch {
    return undefined;
  }
  const ownerOfPort = new Map<number, string>();
  for (const line of sockets.split('\n')) {
    // State Recv-Q Send-Q Local Peer users:(("node",pid=N,...))
    const m = /^\S+\s+\d+\s+\d+\s+\S+:(\d+)\s+\S+\s+users:\(\("[^"]*",pid=(\d+)/.exec(line);
    if (m) ownerOfPort.set(Number(m[1]), owners[Number(m[2])] ?? 'others');
  }
  const backends = await q<{ pid: number; port: number | null; type: string }>(
    db,
    `SELECT pid, client_port AS port, backend_type AS type FROM pg_stat_activity WHERE pid <> pg_backend_pid()`,
  );
  const out = new Map<number, { who: string; cpu: number }>();
  for (const b of backends) {
    const who = b.type === 'client backend' ? (ownerOfPort.get(b.port ?? -1) ?? 'others') : 'background';
    try {
      out.set(b.pid, { who, cpu: processCpuSeconds(b.pid) });
    } catch {
      // the backend ended
    }
  }
  return out;
}

/**
 * PostgreSQL's CPU time (us, every postgres process) per delivery while `backlog` pending deliveries of one webhook,
 * each of its own subject, are leased, claimed a batch at a time, stored and released through the delivery worker's
 * own statements (WebhooksRepository) and batch sizes, until none is left; no HTTP. Before each round the tables are
 * emptied, then filled and analysed, as autovacuum would have them on a busy server; small backlogs are drained several
 * times over, so that at least 10,000 deliveries are measured (/proc counts CPU time in 10 ms ticks: 2,000 left the
 * figure to within a tenth). With `deliveredBefore`, that many deliveries are made the same way first, unmeasured,
 * with autovacuum off for the table, and then analysed (not vacuumed): statistics that see nothing pending, as a worker
 * that keeps up leaves them, and the delivered rows' entries still in the pending-only indexes when the backlog comes.
 */
async function claimCost(url: string, backlog: number, deliveredBefore = 0): Promise<number> {
  const webhookId = '5a8e2f40-1c7d-4e9b-b3a6-0d2c4f6e8a13';
  const repo = new WebhooksRepository();
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const sql = sqlOn(db);
    let cpu = 0;
    let delivered = 0;
    /** `count` events of one subject each, from d`from` on, one delivery each. */
    const record = async (count: number, from: number): Promise<void> => {
      for (let done = 0; done < count; done += 500) {
        const events = Array.from({ length: Math.min(500, count - done) }, (_, i) =>
          participantEvent('p1', 'dtp.diamond.updated', `d${from + done + i}`, { diamond_id: `d${from + done + i}` }, new Date()),
        );
        await writeParticipantEvents(sql, events);
      }
    };
    /**
     * Leases the webhook, claims batches as the worker does for a receiver that accepts (nextClaimSize) and stores them
     * as delivered, moves the walk's start (once WALK_MOVE_EVERY were claimed since the last move) and releases it,
     * until nothing is due, as the worker does (delivery-worker.ts); how many.
     */
    let sinceMove = 0;
    const drain = async (): Promise<number> => {
      let n = 0;
      while ((await repo.leaseWebhooks(sql, 'bench', 1, 60_000)).length > 0) {
        let claimed = 0;
        for (let b = 0; ; b++) {
          const size = nextClaimSize(b, claimed, true);
          if (size === 0) break;
          const batch = await repo.claimBatch(sql, webhookId, 'bench', size, 60_000);
          if (batch.length === 0) break;
          claimed += batch.length;
          const at = new Date();
          await repo.recordAttempts(
            sql,
            batch.map((d) => ({
              delivery_id: d.delivery_id,
              attempts: d.attempts,
              status: 'delivered' as const,
              code: 204,
              error: null,
              nextAttemptAt: null,
              at,
            })),
          );
          n += batch.length;
          sinceMove += batch.length;
        }
        if (sinceMove >= WALK_MOVE_EVERY) {
          sinceMove = 0;
          await repo.moveWalkStart(sql, webhookId);
        }
        await repo.release(sql, webhookId, 'bench');
      }
      return n;
    };
    for (let round = 0; round < Math.ceil(10_000 / backlog); round++) {
      await db.query('TRUNCATE webhook_deliveries, participant_events, webhooks');
      await db.query(`ALTER TABLE webhook_deliveries SET (autovacuum_enabled = ${deliveredBefore > 0 ? 'false' : 'true'})`);
      await db.query(
        `INSERT INTO webhooks (webhook_id, participant_id, url, secret, created_at) VALUES ($1, 'p1', 'http://127.0.0.1:9/hook', 'whsec_x', now())`,
        [webhookId],
      );
      if (deliveredBefore > 0) {
        // a worker keeping up: the deliveries made, then statistics that see nothing pending (ANALYZE, no vacuum)
        await record(deliveredBefore, 0);
        if ((await drain()) !== deliveredBefore) throw new Error(`delivered fewer than ${deliveredBefore}`);
        await db.query('ANALYZE webhook_deliveries, participant_events');
        await record(backlog, deliveredBefore);
      } else {
        await record(backlog, 0);
        await db.query('VACUUM ANALYZE webhook_deliveries');
        await db.query('ANALYZE participant_events');
      }
      const cpu0 = postgresCpuSeconds();
      const n = await drain();
      cpu += postgresCpuSeconds() - cpu0;
      await db.query(`ALTER TABLE webhook_deliveries RESET (autovacuum_enabled)`);
      if (n !== backlog) throw new Error(`claimed ${n} of ${backlog} deliveries`);
      delivered += n;
    }
    return (cpu / delivered) * 1e6;
  } finally {
    await db.end();
  }
}

export default bench;
