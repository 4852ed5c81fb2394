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
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDtpClient, unwrap } from '@dtp/sdk';
import type { Benchmark } from './run';
import { AUDIENCES, inProcessStack, median, onboard, round } from './support';

const AUDIENCE = AUDIENCES.platform;
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 2000);
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 2);
const CONCURRENCY = 16;
const ANCHOR_FLAG = 'DTP_BENCH_SDK_ANCHOR';
const root = path.join(__dirname, '..');

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
  const stack = await inProcessStack('import', { authEnv: { TOKEN_RATE_LIMIT_PER_CLIENT: '100000000', TOKEN_RATE_LIMIT_PER_IP: '100000000' } });
  const work = mkdtempSync(path.join(tmpdir(), 'dtp-bench-import-'));
  try {
    const { authUrl, platformUrl } = stack;
    const producer = await onboard(authUrl, 'Bench Mining');
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
      value: round(median(cli), 1),
      unit: 'rows/s',
      anchor: round(anchor, 1),
      ratio: round(median(cli) / anchor, 2),
    });
  } finally {
    await stack.close();
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
