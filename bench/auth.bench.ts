/**
 * Auth benchmarks (`npm run bench -- auth`): starts an embedded PostgreSQL (throw-away data dir under /tmp), the
 * auth service and a tiny guarded app on loopback, then measures with autocannon (in this process, so the load
 * generator shares the CPU with the servers):
 *  - token endpoint throughput and p99 with the verified-secret cache off (scrypt N=2^14 per request is the cost;
 *    anchor: raw scrypt derivations/s measured in the same process with the same concurrency), and for a repeat
 *    client with the cache on (anchor: the cache-off figure; the goal of #17 is >= 10x);
 *  - the guard's added latency: the same route guarded vs @Public (p50 and p99);
 *  - the invalid_client answer time for an unknown client id vs a wrong secret (no timing oracle: ratio ~ 1).
 */
import autocannon from 'autocannon';
import { randomBytes, scrypt } from 'node:crypto';
import { rm } from 'node:fs/promises';
import pino from 'pino';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport } from '@dtp/events';
import { loadConfig } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { startGuardedApp } from '@dtp/testing';
import type { Benchmark } from './run';

const ISSUER = 'http://auth.bench';
const AUDIENCE = 'http://platform.bench';
const ADMIN = 'bench-admin-token-0123456789';
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 8;

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** scrypt derivations per second with the service's parameters and CONNECTIONS in flight. */
async function scryptRate(seconds: number): Promise<number> {
  const salt = randomBytes(16);
  const derive = () =>
    new Promise<void>((resolve, reject) =>
      scrypt('x'.repeat(43), salt, 32, { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (e) => (e ? reject(e) : resolve())),
    );
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await derive();
        done += 1;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

/** Median latencies of two request bodies (all answered 401), measured alternately so that drift hits both. */
async function medianLatencies(url: string, a: string, b: string, n: number): Promise<[number, number]> {
  const once = async (body: string) => {
    const t = process.hrtime.bigint();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.arrayBuffer();
    if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i += 1) {
    ta.push(await once(a));
    tb.push(await once(b));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(ta), median(tb)];
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres } = await import('../tools/embedded-pg.mjs');
  const dataDir = `/tmp/dtp-bench-auth-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: true });
  const logger = pino({ level: 'silent' });
  const transport = new InProcessTransport();
  const closers: (() => Promise<void>)[] = [];
  try {
    const db = withDatabase(pg.url, 'bench_auth');
    await ensureDatabase(db);
    const config = loadConfig('auth', authService.configClass, {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: db,
      AUTH_ISSUER: ISSUER,
      AUTH_ADMIN_TOKEN: ADMIN,
      PLATFORM_AUDIENCE: AUDIENCE,
      TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
      TOKEN_RATE_LIMIT_PER_IP: '100000000',
      TOKEN_FAILURE_LIMIT: '100000000', // the invalid_client timing step fails on purpose, thousands of times
    });
    await authService.migrate(config, logger);
    const auth = await authService.start(config, { transport }, logger);
    closers.push(() => auth.close());
    const authUrl = auth.url.replace('localhost', '127.0.0.1');
    // The same service with the verified-secret cache off: every token request pays scrypt (the anchor of the cache).
    const uncached = await authService.start(
      Object.assign(Object.create(Object.getPrototypeOf(config)), config, { TOKEN_SECRET_CACHE_SECONDS: 0 }),
      { transport },
      logger,
    );
    closers.push(() => uncached.close());
    const uncachedUrl = uncached.url.replace('localhost', '127.0.0.1');

    const onboarded = await fetch(`${authUrl}/admin/participants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Bench Mining', role: 'producer' }),
    });
    const creds = (await onboarded.json()) as { client_id: string; client_secret: string };
    const tokenBody = JSON.stringify({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret, audience: AUDIENCE });

    // token endpoint
    // the anchor is measured before and after the run and averaged: other work on the machine moves both
    const before = await scryptRate(3);
    const scrypted = await run({ url: `${uncachedUrl}/oauth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody });
    const anchor = (before + (await scryptRate(3))) / 2;
    if (scrypted.non2xx > 0 || scrypted.errors > 0) throw new Error(`token benchmark: ${scrypted.non2xx} non-2xx, ${scrypted.errors} errors`);
    report({
      name: 'auth token endpoint throughput, cache off: scrypt N=2^14 per request (anchor: raw scrypt)',
      value: round(scrypted.requests.average),
      unit: 'req/s',
      anchor: round(anchor),
      ratio: round(scrypted.requests.average / anchor, 3),
    });
    report({ name: 'auth token endpoint latency p99, cache off', value: scrypted.latency.p99, unit: 'ms', anchor: null, ratio: null });
    // A repeat client (issue 17: >= 10x the scrypt-per-request throughput)
    const token = await run({ url: `${authUrl}/oauth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody });
    if (token.non2xx > 0 || token.errors > 0) throw new Error(`token benchmark: ${token.non2xx} non-2xx, ${token.errors} errors`);
    report({
      name: 'auth token endpoint throughput, repeat client: verified-secret cache (anchor: cache off)',
      value: round(token.requests.average),
      unit: 'req/s',
      anchor: round(scrypted.requests.average),
      ratio: round(token.requests.average / scrypted.requests.average, 3),
    });
    report({
      name: 'auth token endpoint latency p99, repeat client (anchor: cache off)',
      value: token.latency.p99,
      unit: 'ms',
      anchor: scrypted.latency.p99,
      ratio: round(token.latency.p99 / scrypted.latency.p99, 3),
    });
    report({ name: 'auth token endpoint latency p50, repeat client', value: token.latency.p50, unit: 'ms', anchor: null, ratio: null });

    // timing oracle check
    const url = `${authUrl}/oauth/token`;
    const unknownBody = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: 'dtp_unknown_client',
      client_secret: creds.client_secret,
      audience: AUDIENCE,
    });
    const wrongBody = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: `${creds.client_secret}x`,
      audience: AUDIENCE,
    });
    await medianLatencies(url, unknownBody, wrongBody, 5);
    const [unknown, wrong] = await medianLatencies(url, unknownBody, wrongBody, 80);
    report({
      name: 'auth invalid_client median latency, unknown client id (anchor: wrong secret)',
      value: round(unknown, 2),
      unit: 'ms',
      anchor: round(wrong, 2),
      ratio: round(unknown / wrong, 3),
    });

    // guard overhead
    const probe = await startGuardedApp({ authUrl, audience: AUDIENCE, issuer: ISSUER });
    closers.unshift(() => probe.close());
    const access = (
      (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody })).json()) as { access_token: string }
    ).access_token;
    const warm = await fetch(`${probe.url}/probe/any`, { headers: { authorization: access } });
    if (warm.status !== 200) throw new Error(`guarded probe answered ${warm.status}`);
    const open = await run({ url: `${probe.url}/probe/open` });
    const guarded = await run({ url: `${probe.url}/probe/any`, headers: { authorization: access } });
    if (guarded.non2xx > 0 || open.non2xx > 0) throw new Error('guard benchmark: non-2xx answers');
    // autocannon reports percentiles in whole milliseconds; the mean is fractional.
    report({
      name: 'guarded route latency mean (anchor: same app, @Public route)',
      value: round(guarded.latency.average, 3),
      unit: 'ms',
      anchor: round(open.latency.average, 3),
      ratio: round(guarded.latency.average / open.latency.average, 3),
    });
    report({
      name: 'guarded route latency p50 (anchor: @Public route)',
      value: guarded.latency.p50,
      unit: 'ms',
      anchor: open.latency.p50,
      ratio: open.latency.p50 > 0 ? round(guarded.latency.p50 / open.latency.p50, 3) : null,
    });
    report({
      name: 'guarded route latency p99 (anchor: @Public route)',
      value: guarded.latency.p99,
      unit: 'ms',
      anchor: open.latency.p99,
      ratio: open.latency.p99 > 0 ? round(guarded.latency.p99 / open.latency.p99, 3) : null,
    });
    report({ name: 'guard added latency mean', value: round(guarded.latency.average - open.latency.average, 3), unit: 'ms', anchor: null, ratio: null });
    report({ name: 'guard added latency p50', value: guarded.latency.p50 - open.latency.p50, unit: 'ms', anchor: null, ratio: null });
    report({ name: 'guard added latency p99', value: guarded.latency.p99 - open.latency.p99, unit: 'ms', anchor: null, ratio: null });
    // one event loop serves the app: 1/throughput is the service time per request; the difference is the guard's cost
    report({
      name: 'guard added service time per request (1/throughput difference)',
      value: round(1000 / guarded.requests.average - 1000 / open.requests.average, 4),
      unit: 'ms',
      anchor: null,
      ratio: null,
    });
    report({
      name: 'guarded route throughput (anchor: @Public route)',
      value: round(guarded.requests.average),
      unit: 'req/s',
      anchor: round(open.requests.average),
      ratio: round(guarded.requests.average / open.requests.average, 3),
    });
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    await transport.close();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export default bench;
