import { spawn } from 'node:child_process';
import { createServer, Server, Socket } from 'node:net';
import path from 'node:path';
import { runCli, USAGE } from '../src/cli/commands';

/**
 * Bad usage of `auth:cli` exits 2 with the usage text before any connection to the database. DATABASE_URL points
 * at a listener that counts connections (and drops them): it must see none.
 */
describe('auth CLI usage errors, without a database', () => {
  let server: Server;
  let connections = 0;
  let databaseUrl = '';
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    databaseUrl = `postgres://postgres:postgres@127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/dtp_auth`;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    connections = 0;
  });

  async function cli(args: string[]): Promise<{ code: number; err: string; out: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, { DATABASE_URL: databaseUrl }, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it.each([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown option', ['onboard', '--bogus', 'x']],
    ['add-credential without --participant', ['add-credential']],
    ['show without --participant', ['show']],
    ['revoke-client without --client-id', ['revoke-client']],
    ['a stray argument', ['rotate-keys', 'now']],
    ['an option without its value', ['onboard', '--name']],
    ["another command's option", ['show', '--client-id', 'c-1']],
  ])('%s: exit 2 with the usage, no connection', async (_name, args) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(USAGE);
    expect(r.out).toBe('');
    expect(connections).toBe(0);
  });

  it('invalid input (a role that does not exist, a participant id that is not a UUID): exit 2, no connection', async () => {
    const role = await cli(['onboard', '--name', 'X', '--role', 'wizard']);
    expect(role.code).toBe(2);
    expect(JSON.parse(role.err)).toMatchObject({ error: 'invalid input', detail: [{ loc: ['options', 'role'] }] });
    const id = await cli(['show', '--participant', 'nope']);
    expect(id.code).toBe(2);
    expect(JSON.parse(id.err)).toEqual({ message: 'participant id must be a UUID' });
    expect(connections).toBe(0);
  });

  it.each([['help'], ['--help'], ['-h'], ['onboard', '--help'], ['show', '-h']])('%s: exit 0 with the usage, no connection', async (...args) => {
    const r = await cli(args);
    expect(r.code).toBe(0);
    expect(r.err).toContain(USAGE);
    expect(connections).toBe(0);
  });

  it('a well-formed command does connect (the listener sees it), so the checks above mean something', async () => {
    await expect(cli(['rotate-keys'])).rejects.toThrow();
    expect(connections).toBeGreaterThan(0);
  });

  it('`npm run auth:cli` itself: the process exits 2 and prints the usage on stderr, nothing on stdout', async () => {
    const root = path.join(__dirname, '..', '..', '..');
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'apps/auth/src/cli.ts', 'add-credential'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('add-credential: --participant is required');
    expect(stderr).toContain(USAGE);
    expect(stdout).toBe('');
    expect(connections).toBe(0);
  });
});
