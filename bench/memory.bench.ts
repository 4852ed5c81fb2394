/**
 * Memory benchmark (`npm run bench -- memory`, #17 item 5): resident memory of each service as it runs in the
 * images, the production build (`node tools/build.js`: plain CommonJS, no TypeScript loader), each its own
 * process over the Kafka peer with one embedded PostgreSQL.
 *
 * Two passes, each with fresh databases and topics:
 *  - as deployed (the goal's figures): the environment of the image's `runtime` stage (its `ENV` lines in
 *    docker/Dockerfile: NODE_ENV, the malloc setting) with the NODE_OPTIONS every Kubernetes overlay gives the
 *    services in place of the image's (k8s/base `dtp-runtime`: both heap generations pinned, under the container's
 *    memory limit; the old generation's limit also makes V8 grow the heap more slowly between collections);
 *  - the image alone (`*_image_only`): its ENV only (its NODE_OPTIONS pins the young generation, not the old), as
 *    `docker run` starts it.
 * Both pin the young generation, so it is the same here as inside a container's memory limit, from which Node would
 * otherwise size it (docs/operations.md, "Memory"). As deployed, the old generation is pinned too.
 * - idle: RSS of each service 5 s after all four are ready, and then its CPU use over the next IDLE_CPU_S seconds
 *   (% of one core; an idle service should cost next to nothing: kafkajs's own request scheduler once spent 2 to
 *   5 % per service, see libs/events/src/kafkajs-request-queue.ts);
 * - under load: the peak RSS (sampled every 250 ms) while platform takes BENCH_DURATION_S (default 10) s of
 *   registrations (32 connections) and then search BENCH_DURATION_S s of reads (64 connections), with gis and
 *   search consuming the diamond events meanwhile.
 * Figures: memory.<service>.idle_rss and .load_rss_peak (and the same with `_image_only`) in MB (10^6 bytes, as
 * the goal of #17 is stated), anchor 150 MB (that goal), ratio = RSS / 150; memory.<service>.idle_private and
 * .load_private_peak (as deployed only), the anonymous part of the same (`RssAnon`: V8's heap, malloc, stacks; the
 * rest is the node binary's file-backed pages, shared between processes of one binary), no anchor;
 * idle.<service>.cpu (and `_image_only`) in % of one core, no anchor.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { parseDockerfile, stageEnv } from '../deploy/checks/src/dockerfile';
import { baseGeneratorLiterals } from '../deploy/checks/src/manifests';
import type { Benchmark } from './run';
import { ADMIN, AUDIENCES, ISSUER, loadAll, q, Replica, round, roughBody, sleep, token } from './support';

const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const GOAL_MB = 150;
const IDLE_CPU_S = 10;
const ROOT = path.join(__dirname, '..');
const SERVICES = ['auth', 'platform', 'search', 'gis'] as const;

type Service = (typeof SERVICES)[number];

/** One way of running the images: the environment on top of the image's own, and the figures' name suffix. */
interface Setting {
  name: string;
  suffix: string;
  env: Record<string, string>;
  what: string;
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres, freePort } = await import('../tools/embedded-pg.mjs');
  const { startKafkaPeer } = await import('../tools/kafka-peer.mjs');
  const tag = `${process.pid}-${randomBytes(3).toString('hex')}`;
  // Inside the repository, so that the built files find node_modules by walking up.
  const out = path.join(ROOT, 'tmp', `bench-dist-${tag}`);
  const build = spawnSync(process.execPath, [path.join(ROOT, 'tools', 'build.js'), '--out', out], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr || build.stdout}`);
  const dataDir = `/tmp/dtp-bench-memory-${tag}`;
  const blobDir = `/tmp/dtp-bench-memory-${tag}-blobs`;
  // Declared before the first `measure` (a function declaration, hoisted, that reads it): until 2026-12-07 it stood
  // after the loop that calls `measure`, and every run stopped at "Cannot access 'signingKeyEncryptionKey' before
  // initialization".
  const signingKeyEncryptionKey = randomBytes(32).toString('base64');
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const peer = await startKafkaPeer({ log: (l) => process.stderr.write(`# ${l}\n`) });
  const imageEnv = stageEnv(parseDockerfile().stages, 'runtime');
  const deployed = baseGeneratorLiterals('dtp-runtime').NODE_OPTIONS;
  const settings: Setting[] = [
    {
      name: 'kubernetes',
      suffix: '',
      env: { ...imageEnv, NODE_OPTIONS: deployed },
      what: `as deployed: the image's ENV and the Kubernetes base's NODE_OPTIONS (${deployed})`,
    },
    {
      name: 'image',
      suffix: '_image_only',
      env: { NODE_OPTIONS: '', ...imageEnv },
      what: "the image alone (docker run): its ENV, whose NODE_OPTIONS leaves the old generation's limit to V8, from the machine's memory",
    },
  ];
  try {
    for (const setting of settings) {
      process.stderr.write(
        `# memory (${setting.name}): ${setting.what}; ${Object.entries(setting.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}\n`,
      );
      const { idle, idlePrivate, idleCpu, peak, peakPrivate, registrations } = await measure(setting, `${tag}-${setting.name}`);
      process.stderr.write(`# memory (${setting.name}): ${registrations} registrations, production build in ${path.relative(ROOT, out)}\n`);
      for (const s of SERVICES) {
        const label = setting.suffix ? 'production build, image alone' : 'production build as deployed';
        report({
          name: `memory.${s}.idle_rss${setting.suffix} (${label}; anchor: goal)`,
          value: round(idle[s], 1),
          unit: 'MB',
          anchor: GOAL_MB,
          ratio: round(idle[s] / GOAL_MB, 3),
        });
        report({
          name: `memory.${s}.load_rss_peak${setting.suffix} (${label}; anchor: goal)`,
          value: round(peak[s], 1),
          unit: 'MB',
          anchor: GOAL_MB,
          ratio: round(peak[s] / GOAL_MB, 3),
        });
        if (!setting.suffix) {
          const privates = [
            ['idle_private', idlePrivate],
            ['load_private_peak', peakPrivate],
          ] as const;
          for (const [figure, mb] of privates) {
            report({
              name: `memory.${s}.${figure} (${label}: anonymous memory, without the binary's shared file pages)`,
              value: round(mb[s], 1),
              unit: 'MB',
              anchor: null,
              ratio: null,
            });
          }
        }
        report({
          name: `idle.${s}.cpu${setting.suffix} (${label}; over ${IDLE_CPU_S} s)`,
          value: round(idleCpu[s], 2),
          unit: '% of a core',
          anchor: null,
          ratio: null,
        });
      }
    }
  } finally {
    await peer.stop();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  }

  /** Starts the four services with `setting`, measures them idle and under load, and stops them. */
  async function measure(
    setting: Setting,
    run: string,
  ): Promise<{
    idle: Record<Service, number>;
    idlePrivate: Record<Service, number>;
    idleCpu: Record<Service, number>;
    peak: Record<Service, number>;
    peakPrivate: Record<Service, number>;
    registrations: number;
  }> {
    const replicas: Partial<Record<Service, Replica>> = {};
    try {
      const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, await freePort()] as const))) as Record<Service, number>;
      for (const service of SERVICES) {
        const db = withDatabase(pg.url, `bench_memory_${setting.name}_${service}`);
        await ensureDatabase(db);
        replicas[service] = new Replica(
          service,
          service as 'auth' | 'platform' | 'search',
          ports[service],
          {
            ...setting.env,
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
            DATABASE_URL: db,
            MIGRATE_ON_START: 'true',
            AUTH_ISSUER: ISSUER,
            AUTH_JWKS_URL: `http://127.0.0.1:${ports.auth}/.well-known/jwks.json`,
            AUTH_ADMIN_TOKEN: ADMIN,
            // Production form (the image's NODE_ENV) requires the signing keys and webhook secrets encrypted at rest.
            SIGNING_KEY_ENCRYPTION_KEY: signingKeyEncryptionKey,
            WEBHOOK_SECRET_ENCRYPTION_KEY: signingKeyEncryptionKey,
            PLATFORM_AUDIENCE: AUDIENCES.platform,
            SEARCH_AUDIENCE: AUDIENCES.search,
            GIS_AUDIENCE: AUDIENCES.gis,
            BLOB_STORE_DIR: blobDir,
            KAFKA_BROKERS: peer.brokers,
            KAFKA_GROUP_PREFIX: `mem-${run}.`,
            KAFKA_TOPIC_PREFIX: `mem-${run}.`,
            KAFKA_SESSION_TIMEOUT_MS: '6000',
            SHUTDOWN_DRAIN_MS: '0',
            TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
            TOKEN_RATE_LIMIT_PER_IP: '100000000',
          },
          [path.join(out, 'apps', service, 'src', 'main.js')],
        );
      }
      for (const service of SERVICES) await replicas[service]!.start();
      await sleep(5000);
      const idleMemory = SERVICES.map((s) => replicas[s]!.memoryMB());
      const idle = Object.fromEntries(SERVICES.map((s, i) => [s, idleMemory[i].rss])) as Record<Service, number>;
      const idlePrivate = Object.fromEntries(SERVICES.map((s, i) => [s, idleMemory[i].private])) as Record<Service, number>;
      const cpuBefore = SERVICES.map((s) => replicas[s]!.cpuSeconds());
      await sleep(IDLE_CPU_S * 1000);
      const idleCpu = Object.fromEntries(SERVICES.map((s, i) => [s, ((replicas[s]!.cpuSeconds() - cpuBefore[i]) / IDLE_CPU_S) * 100])) as Record<
        Service,
        number
      >;

      const peak = { ...idle };
      const peakPrivate = { ...idlePrivate };
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          for (const s of SERVICES) {
            const now = replicas[s]!.memoryMB();
            peak[s] = Math.max(peak[s], now.rss);
            peakPrivate[s] = Math.max(peakPrivate[s], now.private);
          }
          await sleep(250);
        }
      })();
      const producer = await token(replicas.auth!.url, 'producer', AUDIENCES.platform);
      const reader = await token(replicas.auth!.url, 'non_participant', AUDIENCES.search);
      let n = 0;
      await loadAll([replicas.platform!.url], 32, DURATION, () => [
        {
          method: 'POST',
          path: '/diamonds/rough/create',
          headers: { 'content-type': 'application/json', authorization: producer },
          setupRequest: (req) => ({ ...req, body: JSON.stringify(roughBody(`mem-${run}-${n++}`)) }),
        },
      ]);
      const ids = (
        await q<{ diamond_id: string }>(
          withDatabase(pg.url, `bench_memory_${setting.name}_platform`),
          'SELECT diamond_id FROM diamonds ORDER BY random() LIMIT 2000',
        )
      ).map((r) => r.diamond_id);
      let k = 0;
      await loadAll([replicas.search!.url], 64, DURATION, () => [
        { method: 'GET', headers: { authorization: reader }, setupRequest: (req) => ({ ...req, path: `/v1/diamonds/${ids[k++ % ids.length]}` }) },
      ]);
      sampling = false;
      await sampler;
      return { idle, idlePrivate, idleCpu, peak, peakPrivate, registrations: n };
    } finally {
      for (const s of [...SERVICES].reverse()) await replicas[s]?.stop().catch(() => undefined);
    }
  }
};

export default bench;
