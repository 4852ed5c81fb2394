import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';

const root = path.join(__dirname, '..', '..');

/**
 * tools/embedded-pg.mjs without a port (the test setup's and the benchmarks' PostgreSQL): a port chosen free can be
 * taken by another process in the seconds before the server listens on it, and then another one is used.
 * The module is ESM, so it runs in a child process (as deploy/checks does).
 */
describe('embedded PostgreSQL on a port of its choosing', () => {
  let holder: net.Server;
  let taken: number;

  beforeAll(async () => {
    holder = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    taken = (holder.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
  });

  it('starts on another port when the first one it chose is taken, and says so', async () => {
    const code = `
      import { startEmbeddedPostgres, freePort } from './tools/embedded-pg.mjs';
      const candidates = [${taken}];
      const pg = await startEmbeddedPostgres({
        dataDir: '/tmp/dtp-embedded-pg-spec-' + process.pid,
        persistent: false,
        fast: true,
        pickPort: async () => candidates.shift() ?? freePort(),
        log: (line) => { if (line.includes('was taken')) process.stdout.write('LOG ' + line + '\\n'); },
      });
      process.stdout.write('URL ' + pg.url + ' PORT ' + pg.port + '\\n');
      process.stdin.on('end', async () => { await pg.stop(); process.exit(0); });
      process.stdin.resume();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    const startedLine = new Promise<RegExpMatchArray>((resolve, reject) => {
      const read = (d: Buffer) => {
        out += d;
        const m = /URL (\S+) PORT (\d+)/.exec(out);
        if (m) resolve(m);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then((c) => reject(new Error(`exited ${c}: ${out}`)));
    });
    try {
      const started = await startedLine;
      expect(out).toContain(`LOG port ${taken} was taken before PostgreSQL could listen on it; trying another`);
      expect(Number(started[2])).not.toBe(taken);
      const client = new Client({ connectionString: `${started[1]}/postgres` });
      await client.connect();
      try {
        expect((await client.query<{ port: string }>('SHOW port')).rows[0].port).toBe(started[2]);
      } finally {
        await client.end();
      }
    } finally {
      child.stdin.end();
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
