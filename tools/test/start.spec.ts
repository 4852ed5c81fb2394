import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { createTestDatabase, onFreshPorts, untilReady } from '@dtp/testing';

const root = path.join(__dirname, '..', '..');

function run(env: Record<string, string>, args: string[] = []): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/start.ts', ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // 'close' (after stdout and stderr ended), not 'exit', which can come before the last output is read.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/**
 * `npm start` with `env` plus the ports, until its ready line; on fresh ports again when one was taken between the
 * pick and the bind (onFreshPorts). A start that fails is killed before the error goes up.
 */
async function startReady<K extends string>(
  keys: readonly K[],
  env: (ports: Record<K, number>) => Record<string, string>,
  opts: { args?: string[]; ms?: number; first?: Record<K, number> } = {},
): Promise<{ ports: Record<K, number>; proc: ReturnType<typeof run> }> {
  const { ports, started } = await onFreshPorts(
    keys,
    async (ports) => {
      const proc = run(env(ports), opts.args);
      try {
        await untilReady(proc.output, proc.exited, 'ready: 4 services up', opts.ms ?? 45_000);
      } catch (err) {
        proc.child.kill('SIGKILL');
        await proc.exited;
        throw err;
      }
      return proc;
    },
    { first: opts.first },
  );
  return { ports, proc: started };
}

/**
 * The README's "First calls", on the ports given (no other variable set): every address the services use for
 * each other (issuer, audiences, JWKS) follows the ports, so the token for audience http://localhost:<platform
 * port> is issued and accepted.
 */
async function readmeFirstCalls(ports: Record<string, number>): Promise<void> {
  const auth = `http://localhost:${ports.auth}`;
  const platform = `http://localhost:${ports.platform}`;
  const onboarded = await fetch(`${auth}/admin/participants`, {
    method: 'POST',
    headers: { authorization: 'Bearer dev-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Acme Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } }),
  });
  expect(onboarded.status).toBe(201);
  const acme = (await onboarded.json()) as { client_id: string; client_secret: string };
  const tokenRes = await fetch(`${auth}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: acme.client_id, client_secret: acme.client_secret, audience: platform }),
  });
  expect(tokenRes.status).toBe(200);
  const { access_token } = (await tokenRes.json()) as { access_token: string };
  const claims = JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url').toString()) as { iss: string; aud: string };
  expect(claims).toMatchObject({ iss: auth, aud: platform });
  const created = await fetch(`${platform}/diamonds/rough/create`, {
    method: 'POST',
    headers: { authorization: access_token, 'content-type': 'application/json' },
    body: JSON.stringify({ box_id: 'BOX-2024-001', participant_id: 'ERP-0001', participant_timestamp: '2024-05-01T10:00:00Z', rough: { carats: 12.5 } }),
  });
  const body = (await created.json()) as { diamond_id?: string };
  expect({ status: created.status, id: typeof body.diamond_id }).toEqual({ status: 200, id: 'string' });
}

describe('npm start (tools/start.ts)', () => {
  it('serves four ready services, then stops cleanly on SIGINT', async () => {
    const names = ['auth', 'platform', 'search', 'gis'] as const;
    const env: Record<string, string> = {};
    for (const n of names) env[`${n.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(`start${n}`);
    env.BLOB_STORE_DIR = `/tmp/dtp-start-test-${process.pid}`;
    const { ports, proc } = await startReady(names, (ports) => ({
      ...env,
      ...Object.fromEntries(names.map((n) => [`${n.toUpperCase()}_PORT`, String(ports[n])])),
      DATABASE_URL: process.env.DTP_TEST_PG_URL!,
    }));
    try {
      for (const n of names) {
        const res = await fetch(`http://localhost:${ports[n]}/health/ready`);
        expect({ n, status: res.status }).toEqual({ n, status: 200 });
      }
      // The banner names the addresses derived from the ports.
      expect(proc.output()).toContain(`token issuer http://localhost:${ports.auth}`);
      expect(proc.output()).toContain(`platform http://localhost:${ports.platform}   search http://localhost:${ports.search}/v1`);
      await readmeFirstCalls(ports);
      proc.child.kill('SIGINT');
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toContain('stopped cleanly');
      await expect(fetch(`http://localhost:${ports.auth}/health/live`)).rejects.toThrow();
    } finally {
      proc.child.kill('SIGKILL');
    }
  });

  it('--tls: HTTPS with client certificates on the TLS ports, a development CA under <data>/tls, and a legacy call with auth:cli issue-dev-certificate', async () => {
    const names = ['auth', 'platform', 'search', 'gis'] as const;
    const env: Record<string, string> = {};
    for (const n of names) env[`${n.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(`starttls${n}`);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dtp-start-tls-'));
    const keys = [...names, ...names.map((n) => `${n}Tls` as const)];
    const { ports: all, proc } = await startReady(
      keys,
      (ports) => ({
        ...env,
        ...Object.fromEntries(
          names.flatMap((n) => [
            [`${n.toUpperCase()}_PORT`, String(ports[n])],
            [`${n.toUpperCase()}_TLS_PORT`, String(ports[`${n}Tls`])],
          ]),
        ),
        DATABASE_URL: process.env.DTP_TEST_PG_URL!,
        DTP_DATA_DIR: dataDir,
        BLOB_STORE_DIR: path.join(dataDir, 'blobs'),
      }),
      { args: ['--tls'] },
    ).catch((err) => {
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    });
    const ports = { auth: all.auth, platform: all.platform, search: all.search, gis: all.gis };
    const tlsPorts = { auth: all.authTls, platform: all.platformTls, search: all.searchTls, gis: all.gisTls };
    try {
      expect(proc.output()).toContain(`mutual TLS  auth https://localhost:${tlsPorts.auth}`);
      const ca = readFileSync(path.join(dataDir, 'tls', 'ca.pem'), 'utf8');
      const meta = (await (await fetch(`http://localhost:${ports.auth}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(meta.mtls_endpoint_aliases).toEqual({ token_endpoint: `https://localhost:${tlsPorts.auth}/oauth/token` });
      // a legacy participant and its development certificate, signed by the CA npm start made
      const onboarded = await fetch(`http://localhost:${ports.auth}/admin/participants`, {
        method: 'POST',
        headers: { authorization: 'Bearer dev-admin-token', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Old ERP', role: 'retailer', integration_started_at: '2022-02-02T00:00:00Z' }),
      });
      const { participant_id } = (await onboarded.json()) as { participant_id: string };
      const issued = JSON.parse(
        execFileSync(process.execPath, ['-r', './tools/register.js', 'apps/auth/src/cli.ts', 'issue-dev-certificate', '--participant', participant_id], {
          cwd: root,
          env: { ...process.env, DTP_DATA_DIR: dataDir, DATABASE_URL: env.AUTH_DATABASE_URL },
          encoding: 'utf8',
        }),
      ) as { certificate_file: string; key_file: string; ca_file: string };
      expect(issued.ca_file).toBe(path.join(dataDir, 'tls', 'ca.pem'));
      const get = (cert?: { cert: string; key: string }) =>
        new Promise<number>((resolve, reject) => {
          const req = httpsRequest(`https://localhost:${tlsPorts.platform}/v2/shipment/inbound`, { ca, ...cert, agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      const cert = { cert: readFileSync(issued.certificate_file, 'utf8'), key: readFileSync(issued.key_file, 'utf8') };
      // the registration reaches platform over the in-process bus within milliseconds; poll with a deadline
      let status = 0;
      for (const until = Date.now() + 10_000; Date.now() < until && status !== 200;) {
        status = await get(cert);
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
      expect(await get()).toBe(401);
      proc.child.kill('SIGINT');
      expect(await proc.exited).toBe(0);
    } finally {
      proc.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with its embedded PostgreSQL: SIGINT leaves no process behind, and a second start finds the data again', async () => {
    const dataDir = `/tmp/dtp-start-embedded-${process.pid}-${Date.now()}`;
    const names = ['auth', 'platform', 'search', 'gis'] as const;
    const keys = [...names, 'pg'] as const;
    // The second start asks for the first one's ports again, as a user restarting it would (fresh ones if taken).
    let ports: Record<(typeof keys)[number], number> | undefined;
    const startOnce = async () => {
      const started = await startReady(
        keys,
        (ports) => ({
          DTP_DATA_DIR: dataDir,
          DTP_PG_PORT: String(ports.pg),
          DATABASE_URL: '',
          ...Object.fromEntries(names.map((n) => [`${n.toUpperCase()}_PORT`, String(ports[n])])),
        }),
        { ms: 60_000, first: ports },
      );
      ports = started.ports;
      return started.proc;
    };
    const postgresOf = () => {
      try {
        return execFileSync('pgrep', ['-f', `postgres -D ${dataDir}/postgres`], { encoding: 'utf8' }).trim();
      } catch {
        return '';
      }
    };
    const admin = { authorization: 'Bearer dev-admin-token', 'content-type': 'application/json' };
    const first = await startOnce();
    let participantId: string;
    try {
      const res = await fetch(`http://localhost:${ports!.auth}/admin/participants`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Keeps Mining', role: 'producer' }),
      });
      expect(res.status).toBe(201);
      participantId = ((await res.json()) as { participant_id: string }).participant_id;
      expect(postgresOf()).not.toBe('');
      first.child.kill('SIGINT');
      expect(await first.exited).toBe(0);
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(first.output()).toContain('stopped cleanly');
    expect(first.output()).not.toMatch(/"level":"(warn|error)"/);
    expect(postgresOf()).toBe('');

    const second = await startOnce();
    try {
      const res = await fetch(`http://localhost:${ports!.auth}/admin/participants/${participantId}`, { headers: admin });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ participant_id: participantId, name: 'Keeps Mining' });
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    } finally {
      second.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 150_000);

  it('refuses a port another process holds, naming its variable, before starting anything', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'dtp-start-busy-'));
    try {
      // No DATABASE_URL: the embedded PostgreSQL would start first if the ports were not looked at before it.
      const proc = run({ DATABASE_URL: '', DTP_DATA_DIR: dataDir, PLATFORM_PORT: String(port) });
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toMatch(/npm start: cannot listen:/);
      expect(proc.output()).toContain(`PLATFORM_PORT: port ${port} is already in use by another process (stop it, or set PLATFORM_PORT to another port)`);
      expect(proc.output()).not.toMatch(/embedded PostgreSQL|ready: 4 services|start failed/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start when a variable is malformed, naming it', async () => {
    const proc = run({ DATABASE_URL: process.env.DTP_TEST_PG_URL!, AUTH_ADMIN_TOKEN: 'short' });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/auth: invalid configuration/);
    expect(proc.output()).toMatch(/AUTH_ADMIN_TOKEN/);
  });

  it('refuses bad ports and public addresses before starting anything, naming each', async () => {
    const proc = run({
      DATABASE_URL: process.env.DTP_TEST_PG_URL!,
      PLATFORM_PORT: 'not-a-port',
      SEARCH_PUBLIC_URL: 'search.example.com',
      PUBLIC_BASE_URL: 'http://x',
    });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/npm start: invalid configuration/);
    expect(proc.output()).toMatch(/PLATFORM_PORT: a port from 1 to 65535/);
    expect(proc.output()).toMatch(/SEARCH_PUBLIC_URL: .* is not a URL/);
    expect(proc.output()).toMatch(/PUBLIC_BASE_URL: not used by the runners/);
    expect(proc.output()).not.toMatch(/embedded PostgreSQL|ready/);
  });
});
