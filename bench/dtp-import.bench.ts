/**
 * `dtp rough import` benchmark (`npm run bench -- dtp-import`): the CLI's import rate beside raw SDK calls.
 *
 * Starts an embedded PostgreSQL (durable settings, throw-away data dir) and auth + platform in this process
 * (in-process event bus, the relay running), onboards a producer, then registers BENCH_IMPORT_ROWS rows (default
 * 2,000) twice, each time in a fresh box and from its own process:
 *  - `dtp.rough_import.rows_per_second`: `dtp rough import <file> --json --concurrency 16` (the CLI through the
 *    workspace's TypeScript loader, as `npm run dtp`); the rate is the CLI's own summary (from its first request to
 *    its last answer: startup and validation not counted);
 *  - anchor, `sdk.rough_create.rows_per_second`: a child process doing the same requests with @dtp/sdk directly
 *    (`platform.POST('/diamonds/rough/create')`, 16 in flight, each with its Idempotency-Key): what the service
 *    gives any client on this machine now. ratio = CLI / SDK (1.0: the CLI adds nothing).
 * The order alternates over BENCH_IMPORT_ROUNDS rounds (default 2) and the medians are reported, since the other
 * work of a shared machine moves both.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import { createDtpClient, unwrap } from '@dtp/sdk';
import type { Benchmark } from './run';

const ISSUER = 'http://auth.bench';
const AUDIENCE = 'http://platform.bench';
const ADMIN = `bench-${randomBytes(24).toString('base64url')}`;
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 2000);
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2);
const CONCURRENCY = 16;
const ANCHOR_FLAG = 'DTP_BENCH_SDK_ANCHOR';
const root = path.join(__dirname, '..');

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const row = (box: string, i: number) => ({
  box_id: box,
  participant_id: `P-${String(i).padStart(6, '0')}`,
  participant_timestamp: '2024-05-02T08:00:00Z',
  rough: { carats: '1.25', colour: 'G' as const },
});

/** Child process: the raw SDK calls, printing `{"seconds": n}`. */
async function sdkAnchor(): Promise<void> {
  const env = process.env;
  const dtp = createDtpClient({
    authUrl: env.DTP_AUTH_URL!,
    platformUrl: env.DTP_PLATFORM_URL!,
    clientId: env.DTP_CLIENT_ID!,
    clientSecret: env.DTP_CLIENT_SECRET!,
    audiences: { platform: AUDIENCE },
  });
  await dtp.tokens!.getToken(dtp.audience('platform'));
  const box = env.BENCH_BOX!;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ROWS) {
        const i = next++;
        await unwrap(dtp.platform.POST('/diamonds/rough/create', { body: row(box, i), headers: { 'Idempotency-Key': `bench-${box}-${i}` } }));
      }
    }),
  );
  process.stdout.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000 })}\n`);
}

/** Runs `node -r tools/register.js <script> args` with `env`; answers its stdout (fails on a non-zero exit). */
function child(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-r', path.join(root, 'tools', 'register.js'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: exit ${code}: ${err.slice(0, 2000)}`))));
  });
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres, freePort } = await import('../tools/embedded-pg.mjs');
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-import-${tag}`;
  const blobDir = `/tmp/dtp-bench-import-blobs-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: false });
  const logger = pino({ level: 'warn' });
  const transport = new InProcessTransport((err) => logger.error({ err }, 'event handler failed'));
  const services: RunningService[] = [];
  const work = mkdtempSync(path.join(tmpdir(), 'dtp-bench-import-'));
  try {
    for (const name of ['bench_auth', 'bench_platform']) await ensureDatabase(withDatabase(pg.url, name));
    const common = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', AUTH_ISSUER: ISSUER, PLATFORM_AUDIENCE: AUDIENCE };
    const authConfig = loadConfig('auth', authService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(pg.url, 'bench_auth'),
      AUTH_ADMIN_TOKEN: ADMIN,
      TOKEN_RATE_LIMIT_PER_CLIENT: '100000000',
      TOKEN_RATE_LIMIT_PER_IP: '100000000',
    });
    const platformConfig = loadConfig('platform', platformService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(pg.url, 'bench_platform'),
      AUTH_JWKS_URL: 'http://127.0.0.1:9/unused',
      BLOB_STORE_DIR: blobDir,
    });
    await authService.migrate(authConfig, logger);
    await platformService.migrate(platformConfig, logger);
    const auth = await authService.start(authConfig, { transport }, logger);
    services.push(auth);
    const authUrl = auth.url.replace('localhost', '127.0.0.1');
    platformConfig.AUTH_JWKS_URL = `${authUrl}/.well-known/jwks.json`;
    const platform = await platformService.start(platformConfig, { transport }, logger);
    services.push(platform);
    const platformUrl = platform.url.replace('localhost', '127.0.0.1');

    const res = await fetch(`${authUrl}/admin/participants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ name: 'Bench Mining', role: 'producer', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } }),
    });
    if (!res.ok) throw new Error(`onboarding: ${res.status} ${await res.text()}`);
    const producer = (await res.json()) as { participant_id: string; client_id: string; client_secret: string };
    const env = {
      DTP_AUTH_URL: authUrl,
      DTP_PLATFORM_URL: platformUrl,
      DTP_PLATFORM_AUDIENCE: AUDIENCE,
      DTP_CLIENT_ID: producer.client_id,
      DTP_CLIENT_SECRET: producer.client_secret,
      DTP_CONFIG_DIR: work,
    };
    // Platform learns of the producer from auth's event: wait until a registration is accepted.
    for (let i = 0; ; i++) {
      try {
        await child([__filename], { ...env, [ANCHOR_FLAG]: '1', BENCH_BOX: 'WARM-UP', BENCH_IMPORT_ROWS: '16' });
        break;
      } catch (err) {
        if (i > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    const cli: number[] = [];
    const sdk: number[] = [];
    const runCli = async (r: number) => {
      const file = path.join(work, `import-${r}.csv`);
      const lines = ['box_id,participant_id,participant_timestamp,rough.carats,rough.colour'];
      for (let i = 0; i < ROWS; i++) {
        const b = row(`CLI-${r}`, i);
        lines.push(`${b.box_id},${b.participant_id},${b.participant_timestamp},${b.rough.carats},${b.rough.colour}`);
      }
      writeFileSync(file, `${lines.join('\n')}\n`);
      const summary = JSON.parse(
        await child([path.join(root, 'apps', 'dtp', 'src', 'main.ts'), 'rough', 'import', file, '--json', '--concurrency', String(CONCURRENCY)], env),
      ) as { registered: number; seconds: number };
      if (summary.registered !== ROWS) throw new Error(`dtp rough import registered ${summary.registered} of ${ROWS}`);
      cli.push(ROWS / summary.seconds);
    };
    const runSdk = async (r: number) => {
      const { seconds } = JSON.parse(await child([__filename], { ...env, [ANCHOR_FLAG]: '1', BENCH_BOX: `SDK-${r}` })) as { seconds: number };
      sdk.push(ROWS / seconds);
    };
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 2 === 0) {
        await runCli(r);
        await runSdk(r);
      } else {
        await runSdk(r);
        await runCli(r);
      }
    }
    const anchor = median(sdk);
    report({
      name: 'dtp.rough_import.rows_per_second',
      value: round(median(cli)),
      unit: 'rows/s',
      anchor: round(anchor),
      ratio: round(median(cli) / anchor, 2),
    });
  } finally {
    for (const s of services.reverse()) await s.close().catch(() => undefined);
    await transport.close();
    await pg.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
};

export default bench;

if (process.env[ANCHOR_FLAG] === '1' && require.main === module) {
  sdkAnchor().catch((err) => {
    process.stderr.write(`sdk anchor failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
