/**
 * Guard benchmark (`npm run bench -- auth-guard`; also run by `npm run bench -- auth`). No database: a tiny HTTP
 * server on loopback publishes an ES256 JWKS in auth's format, tokens are signed here as auth signs them (ES256,
 * `typ: at+jwt`, kid, iss/aud/iat/exp/sub/jti, participant_id/role), and a guarded app (startGuardedApp) checks them.
 * autocannon runs in this process, so the load generator shares the CPU with the app (as in auth.bench.ts).
 *
 * - the guard's added latency: the same app's @Public route vs a guarded route called with one token (the
 *   verified-token cache answers after the first request) and with a new token on every request (full check:
 *   header, key lookup, ES256 signature, claims); mean, p50, p99, and the service time per request;
 * - the guard's added CPU time per request without sockets or load generator (Fastify's inject into the same kind
 *   of app, one request at a time, CPU time of this process), rounds of each kind alternated, medians reported:
 *   this one is the steadiest on a shared machine;
 * - TokenVerifier.verify calls per second, one at a time: the same token (cached) and distinct tokens (uncached).
 */
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { exportJWK, generateKeyPair, KeyLike, SignJWT } from 'jose';
import pino from 'pino';
import { AuthGuardModule, Caller, CurrentCaller, TokenVerifier } from '@dtp/auth-guard';
import { createHttpApp, newServiceContext, Public } from '@dtp/service-kit';
import { startGuardedApp } from '@dtp/testing';
import type { Benchmark } from './run';

const ISSUER = 'http://auth.bench';
const AUDIENCE = 'http://platform.bench';
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = 8;
const KID = 'bench-key-1';

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ duration: DURATION, connections: CONNECTIONS, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

function sign(key: KeyLike): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'dtp_bench_client', participant_id: '0190f0c2-5a1e-7c3b-9d4e-000000000001', role: 'producer', name: 'Bench Mining' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: KID })
    .setIssuer(ISSUER)
    .setSubject('dtp_bench_client')
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(key);
}

/** Calls per second of `verify`, one call at a time, for `seconds`. */
async function verifyRate(verify: (i: number) => Promise<unknown>, seconds: number): Promise<number> {
  let done = 0;
  const started = Date.now();
  const until = started + seconds * 1000;
  while (Date.now() < until) {
    for (let k = 0; k < 100; k += 1) await verify(done++);
  }
  return done / ((Date.now() - started) / 1000);
}

@Controller('probe')
class InjectProbeController {
  @Public()
  @Get('open')
  open() {
    return { ok: true };
  }

  @Get('any')
  any(@CurrentCaller() caller: Caller) {
    return caller;
  }
}

/**
 * CPU time (microseconds) per request of `GET /probe/open`, `/probe/any` with one token, and `/probe/any` with a
 * new token each time, through Fastify's inject: ROUNDS rounds of PER_ROUND requests of each kind, alternated.
 */
async function injectCpu(jwksBase: string, tokens: string[]): Promise<{ open: number; cached: number; uncached: number }> {
  @Module({
    imports: [AuthGuardModule.forRoot({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: `${jwksBase}/.well-known/jwks.json` })],
    controllers: [InjectProbeController],
  })
  class InjectProbeModule {}
  const app = await createHttpApp({
    ctx: newServiceContext('probe', pino({ level: 'silent' })),
    module: InjectProbeModule,
    docs: { title: 'probe', description: 'probe', version: '0' },
  });
  await app.init();
  const fastify = app.getHttpAdapter().getInstance();
  const ROUNDS = 7;
  const PER_ROUND = Number(process.env.BENCH_GUARD_INJECT ?? 1500);
  let next = 1;
  const kinds = {
    open: () => ({ url: '/probe/open', headers: {} }),
    cached: () => ({ url: '/probe/any', headers: { authorization: tokens[0] } }),
    uncached: () => ({ url: '/probe/any', headers: { authorization: tokens[next++ % tokens.length] } }),
  };
  const samples: Record<keyof typeof kinds, number[]> = { open: [], cached: [], uncached: [] };
  try {
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const kind of Object.keys(kinds) as (keyof typeof kinds)[]) {
        const cpu = process.cpuUsage();
        for (let i = 0; i < PER_ROUND; i += 1) {
          const res = await fastify.inject({ method: 'GET', ...kinds[kind]() });
          if (res.statusCode !== 200) throw new Error(`inject ${kind}: ${res.statusCode} ${res.body}`);
        }
        const used = process.cpuUsage(cpu);
        if (round > 0) samples[kind].push((used.user + used.system) / PER_ROUND); // round 0 warms up
      }
    }
  } finally {
    await app.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { open: median(samples.open), cached: median(samples.cached), uncached: median(samples.uncached) };
}

const bench: Benchmark = async (report) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: 'ES256', use: 'sig' }] });
  const issuer: Server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve));
  const authUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
  const probe = await startGuardedApp({ authUrl, audience: AUDIENCE, issuer: ISSUER });
  try {
    const token = await sign(privateKey);
    const warm = await fetch(`${probe.url}/probe/any`, { headers: { authorization: token } });
    if (warm.status !== 200) throw new Error(`guarded probe answered ${warm.status}: ${await warm.text()}`);

    // enough distinct tokens for the uncached run (one per request)
    const fresh = await Promise.all(Array.from({ length: Number(process.env.BENCH_GUARD_TOKENS ?? 60_000) }, () => sign(privateKey)));
    let next = 0;
    const open = await run({ url: `${probe.url}/probe/open` });
    const cached = await run({ url: `${probe.url}/probe/any`, headers: { authorization: token } });
    const uncached = await run({
      url: `${probe.url}/probe/any`,
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: fresh[next++ % fresh.length] } }) }],
    });
    for (const [what, r] of [
      ['open', open],
      ['cached', cached],
      ['uncached', uncached],
    ] as const) {
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`guard benchmark (${what}): ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
    if (next > fresh.length) process.stderr.write(`# note: ${next} requests reused ${fresh.length} tokens; raise BENCH_GUARD_TOKENS\n`);

    for (const [label, guarded] of [
      ['one token (cached)', cached],
      ['new token per request (uncached)', uncached],
    ] as const) {
      // autocannon reports percentiles in whole milliseconds; the mean is fractional.
      report({
        name: `guarded route latency mean, ${label} (anchor: same app, @Public route)`,
        value: round(guarded.latency.average, 3),
        unit: 'ms',
        anchor: round(open.latency.average, 3),
        ratio: round(guarded.latency.average / open.latency.average, 3),
      });
      report({
        name: `guarded route latency p50, ${label} (anchor: @Public route)`,
        value: guarded.latency.p50,
        unit: 'ms',
        anchor: open.latency.p50,
        ratio: open.latency.p50 > 0 ? round(guarded.latency.p50 / open.latency.p50, 3) : null,
      });
      report({
        name: `guarded route latency p99, ${label} (anchor: @Public route)`,
        value: guarded.latency.p99,
        unit: 'ms',
        anchor: open.latency.p99,
        ratio: open.latency.p99 > 0 ? round(guarded.latency.p99 / open.latency.p99, 3) : null,
      });
      report({
        name: `guard added latency mean, ${label}`,
        value: round(guarded.latency.average - open.latency.average, 3),
        unit: 'ms',
        anchor: null,
        ratio: null,
      });
      report({ name: `guard added latency p50, ${label}`, value: guarded.latency.p50 - open.latency.p50, unit: 'ms', anchor: null, ratio: null });
      report({ name: `guard added latency p99, ${label}`, value: guarded.latency.p99 - open.latency.p99, unit: 'ms', anchor: null, ratio: null });
      // one event loop serves the app: 1/throughput is the service time per request; the difference is the guard's cost
      report({
        name: `guard added service time per request, ${label} (1/throughput difference)`,
        value: round(1000 / guarded.requests.average - 1000 / open.requests.average, 4),
        unit: 'ms',
        anchor: null,
        ratio: null,
      });
      report({
        name: `guarded route throughput, ${label} (anchor: @Public route)`,
        value: round(guarded.requests.average),
        unit: 'req/s',
        anchor: round(open.requests.average),
        ratio: round(guarded.requests.average / open.requests.average, 3),
      });
    }

    // CPU per request, in process
    const cpu = await injectCpu(authUrl, fresh);
    report({
      name: 'guard added CPU per request, one token (cached; inject, median of 7 rounds; anchor: @Public route CPU/request)',
      value: round(cpu.cached - cpu.open),
      unit: 'us',
      anchor: round(cpu.open),
      ratio: round(cpu.cached / cpu.open, 3),
    });
    report({
      name: 'guard added CPU per request, new token per request (uncached; inject, median of 7 rounds; anchor: @Public route CPU/request)',
      value: round(cpu.uncached - cpu.open),
      unit: 'us',
      anchor: round(cpu.open),
      ratio: round(cpu.uncached / cpu.open, 3),
    });

    // the verifier alone
    const verifier = new TokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: `${authUrl}/.well-known/jwks.json`, tokenTtlSeconds: 3600 });
    await verifier.verify(token);
    const seconds = Math.max(1, Math.round(DURATION / 3));
    const hits = await verifyRate(() => verifier.verify(token), seconds);
    const misses = await verifyRate((i) => verifier.verify(fresh[i % fresh.length]), seconds);
    report({
      name: 'TokenVerifier.verify calls/s, distinct tokens (uncached; anchor: one token, cached)',
      value: round(misses),
      unit: 'calls/s',
      anchor: round(hits),
      ratio: round(misses / hits, 4),
    });
  } finally {
    await probe.close();
    await new Promise((resolve) => issuer.close(resolve));
  }
};

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export default bench;
