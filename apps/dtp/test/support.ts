import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { ParticipantCredentials, TestStack } from '@dtp/testing';
import { TEST_AUDIENCES } from '@dtp/testing';
import { runCli } from '../src/cli';
import type { CliIo } from '../src/io';

export const root = path.join(__dirname, '..', '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh, empty config directory (DTP_CONFIG_DIR) for one test. */
export function tempDir(prefix = 'dtp-cli-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** Environment for the CLI: no inherited DTP_* settings, its own config dir, and `extra`. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DTP_')) env[k] = v;
  return { ...env, DTP_CONFIG_DIR: tempDir('dtp-config-'), ...extra };
}

/** Settings that point the CLI at a test stack with one participant's credentials. */
export function stackEnv(stack: Pick<TestStack, 'urls'>, creds: Pick<ParticipantCredentials, 'client_id' | 'client_secret'>): Record<string, string> {
  return {
    DTP_CLIENT_ID: creds.client_id,
    DTP_CLIENT_SECRET: creds.client_secret,
    DTP_AUTH_URL: stack.urls.auth!,
    ...(stack.urls.platform ? { DTP_PLATFORM_URL: stack.urls.platform, DTP_PLATFORM_AUDIENCE: TEST_AUDIENCES.platform } : {}),
    ...(stack.urls.search ? { DTP_SEARCH_URL: stack.urls.search, DTP_SEARCH_AUDIENCE: TEST_AUDIENCES.search } : {}),
    ...(stack.urls.gis ? { DTP_GIS_URL: stack.urls.gis, DTP_GIS_AUDIENCE: TEST_AUDIENCES.gis } : {}),
  };
}

/** Runs the CLI in this process (fast: for usage, help and most commands), capturing its output. */
export async function dtp(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string; tty?: boolean } = {},
): Promise<CliRun & { terminal: string }> {
  let stdout = '';
  let stderr = '';
  let terminal = '';
  const stdin = new PassThrough();
  stdin.end(opts.stdin ?? '');
  // With `tty`, stderr poses as a terminal (what progress bars draw on); what is drawn is kept in `terminal`.
  const errStream = Object.assign(new PassThrough(), { isTTY: Boolean(opts.tty), columns: 120 });
  errStream.on('data', (c: Buffer) => (terminal += c.toString()));
  const io: CliIo = {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    stdin,
    errIsTTY: Boolean(opts.tty),
    errStream,
    env: opts.env ?? cliEnv(),
    cwd: opts.cwd ?? process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr, terminal };
}

/** Starts the CLI as its own process (`node -r tools/register.js apps/dtp/src/main.ts ...`), as a user would run it. */
export function spawnDtp(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, ['-r', path.join(root, 'tools', 'register.js'), path.join(root, 'apps', 'dtp', 'src', 'main.ts'), ...args], {
    cwd: opts.cwd ?? root,
    env: opts.env ?? cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : 1), stdout, stderr }));
  });
  return { child, done };
}

/**
 * A TCP listener that counts the connections made to it: pointed to as every service URL, it proves that a
 * command sent nothing.
 */
export async function connectionCounter(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    count += 1;
    sockets.add(s);
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `probe` until it answers something other than undefined, or fails after `ms`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
