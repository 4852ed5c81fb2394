/**
 * Restart benchmark (`npm run bench -- restart`, issue 30 item 2): how soon search is whole again after it dies
 * while registrations go on (BENCH_RESTART_RATE registrations/s, default 100), with the services' default Kafka
 * session timeout (10 s; the tests use 6 s). Auth, platform and search as processes over the Kafka peer, one
 * embedded PostgreSQL. For a SIGKILL and for a SIGTERM (graceful: it leaves its groups), each from the moment the
 * new process is started:
 *  - http: `/health/live` answers;
 *  - head: `/health/ready` no longer lists a `consumers` component (every consumer running and at the head its
 *    topic had when it started: readiness reads `catching up (lag N)` until then);
 *  - visible: a registration made after the old process died reads 200 through search.
 * DESIGN.md's target: serving HTTP within 5 s, at the head within 10 s. The figures carry that target as anchor.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ensureDatabase, withDatabase } from '@dtp/database';
import type { Benchmark } from './run';
import { AUDIENCES, postJson, Replica, round, roughBody, sleep, stackEnv, token } from './support';

const RATE = Number(process.env.BENCH_RESTART_RATE ?? 100);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> {
  for (const end = Date.now() + ms; ; await sleep(25)) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch {
      // not answering yet
    }
    if (Date.now() > end) throw new Error(`restart bench: ${what} not within ${ms} ms`);
  }
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres, freePort } = await import('../tools/embedded-pg.mjs');
  const { startKafkaPeer } = await import('../tools/kafka-peer.mjs');
  const tag = `restart-${process.pid}-${randomBytes(3).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const peer = await startKafkaPeer({ log: (l) => process.stderr.write(`# ${l}\n`) });
  const dbs = Object.fromEntries(['auth', 'platform', 'search'].map((n) => [n, withDatabase(pg.url, `${tag.replace(/-/g, '_')}_${n}`)])) as Record<
    'auth' | 'platform' | 'search',
    string
  >;
  for (const db of Object.values(dbs)) await ensureDatabase(db);
  const authPort = await freePort();
  const env = (db: string) => stackEnv({ db, authPort, blobDir: `${dataDir}-blobs`, brokers: peer.brokers, tag });
  const auth = new Replica('auth', 'auth', authPort, env(dbs.auth));
  const platform = new Replica('platform', 'platform', await freePort(), env(dbs.platform));
  const search = new Replica('search', 'search', await freePort(), env(dbs.search));
  let writing = true;
  let writer: Promise<void> = Promise.resolve();
  try {
    for (const r of [auth, platform, search]) await r.start();
    const producer = await token(auth.url, 'producer', AUDIENCES.platform);
    const reader = await token(auth.url, 'non_participant', AUDIENCES.search);
    let seq = 0;
    const register = async () =>
      (await postJson<{ diamond_id: string }>(`${platform.url}/diamonds/rough/create`, roughBody(`R-${(seq += 1)}`), { authorization: producer })).diamond_id;
    writer = (async () => {
      while (writing) {
        const started = Date.now();
        await register().catch(() => undefined);
        await sleep(Math.max(0, 1000 / RATE - (Date.now() - started)));
      }
    })();
    await sleep(3000);

    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      const child = search.child!;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
      const afterDeath = await register();
      const restarted = Date.now();
      // Replica.start resolves once the consumers are at the head; the figures are taken by probes of our own.
      const starting = search.start();
      const http = await until('/health/live', async () => ((await fetch(`${search.url}/health/live`)).status === 200 ? Date.now() - restarted : undefined));
      const [head, visible] = await Promise.all([
        until('at the head', async () => {
          const res = await fetch(`${search.url}/health/ready`);
          const body = (await res.json()) as { checks?: Record<string, string> };
          return res.status === 200 && !body.checks?.consumers ? Date.now() - restarted : undefined;
        }),
        until('the registration made after the death', async () =>
          (await fetch(`${search.url}/v1/diamonds/${afterDeath}`, { headers: { authorization: reader } })).status === 200 ? Date.now() - restarted : undefined,
        ),
      ]);
      await starting;
      const name = signal === 'SIGKILL' ? 'killed' : 'stopped';
      report({ name: `restart.search.${name}.http_after_restart (anchor: 5 s)`, value: http, unit: 'ms', anchor: 5000, ratio: round(http / 5000, 3) });
      report({ name: `restart.search.${name}.at_head_after_restart (anchor: 10 s)`, value: head, unit: 'ms', anchor: 10_000, ratio: round(head / 10_000, 3) });
      report({
        name: `restart.search.${name}.write_visible_after_restart at ${RATE}/s (anchor: 10 s)`,
        value: visible,
        unit: 'ms',
        anchor: 10_000,
        ratio: round(visible / 10_000, 3),
      });
      await sleep(3000);
    }
  } finally {
    writing = false;
    await writer;
    for (const r of [search, platform, auth]) await r.stop().catch(() => undefined);
    await peer.stop();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}-blobs`, { recursive: true, force: true });
  }
};

export default bench;
