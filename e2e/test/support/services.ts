import { randomBytes } from 'node:crypto';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, HeldPort, KafkaProxy, kafkaTestBrokers, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER } from '@dtp/testing';

export type AppName = 'auth' | 'platform' | 'search' | 'gis';
const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * One service running as its own Node process (`node -r ./tools/register.js apps/<app>/src/main.ts`), on an address and
 * port it holds from `hold` to `close` (`HeldPort`): killed and started again, it comes back at the same URL, and no
 * other process can take its port in between.
 */
export class ServiceProcess {
  child?: ChildProcess;
  readonly url: string;
  private output: string[] = [];
  exited?: Promise<number | null>;

  constructor(
    readonly name: AppName,
    private readonly held: HeldPort,
    readonly env: Record<string, string>,
  ) {
    this.url = `http://${held.host}:${held.port}`;
  }

  static async hold(name: AppName, env: Record<string, string>): Promise<ServiceProcess> {
    return new ServiceProcess(name, await HeldPort.hold(), env);
  }

  /** Starts the service's own `main.ts`, or `entry` (a test entry point, e.g. one that injects a fault). */
  async start(extraEnv: Record<string, string> = {}, entry = `apps/${this.name}/src/main.ts`, readyTimeoutMs = 60_000): Promise<void> {
    this.output = [];
    const child = spawn(process.execPath, ['-r', './tools/register.js', entry], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, ...extraEnv, HOST: this.held.host, PORT: String(this.held.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString());
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await this.waitReady(readyTimeoutMs);
  }

  async waitReady(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited?.then((c) => (exitCode = c ?? -1));
    for (;;) {
      if (exitCode !== undefined) throw new Error(`${this.name} exited (${exitCode}) before it was ready:\n${this.logTail()}`);
      try {
        const res = await fetch(`${this.url}/health/ready`);
        // Ready, and its consumers started: a service answers before its Kafka groups are joined (readiness
        // `consumers: degraded: starting ...` until then), and these tests act the moment the stack is up, as if
        // events flowed. A restarted consumer still catching up on its backlog counts as started.
        const body = res.status === 200 ? ((await res.json()) as { checks?: Record<string, string> }) : undefined;
        const consumers = body?.checks?.consumers;
        if (body && (!consumers || consumers.startsWith('degraded: catching up'))) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.logTail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  logTail(): string {
    return this.output.join('').split('\n').slice(-30).join('\n');
  }

  /** SIGKILL: no graceful anything (no offset commit, no relay mark). */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait (graceful stop). */
  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** Stops the service and lets its port go. */
  async close(): Promise<void> {
    await this.stop();
    await this.held.release();
  }
}

export interface ProcessStack {
  services: Record<AppName, ServiceProcess>;
  urls: Record<AppName, string>;
  databases: Record<AppName, string>;
  proxy: KafkaProxy;
  blobDir: string;
  close(): Promise<void>;
}

/**
 * Starts auth, platform, search and gis as separate processes, each with its own fresh database (migrated on
 * start), all talking to the Kafka peer of this test run through a TCP proxy the test can take down.
 */
export async function startProcessStack(names: AppName[] = ['auth', 'platform', 'search', 'gis']): Promise<ProcessStack> {
  const [broker] = kafkaTestBrokers();
  const [host, port] = broker.split(':');
  const proxy = new KafkaProxy({ host, port: Number(port) });
  const via = await proxy.start();
  const blobDir = await mkdtemp(path.join(tmpdir(), 'dtp-e2e-blobs-'));
  const groupPrefix = `e2e-${process.pid}-${randomBytes(4).toString('hex')}.`;
  const databases = {} as Record<AppName, string>;
  for (const n of names) databases[n] = await createTestDatabase(`e2e${n}`);
  // auth's address first: every service's environment names it.
  if (!names.includes('auth')) throw new Error('startProcessStack: the stack needs auth (every service checks tokens with its keys)');
  const auth = await HeldPort.hold();
  const authUrl = `http://${auth.host}:${auth.port}`;
  const services = {} as Record<AppName, ServiceProcess>;
  for (const n of names) {
    const env = {
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      DATABASE_URL: databases[n],
      MIGRATE_ON_START: 'true',
      AUTH_ISSUER: TEST_ISSUER,
      AUTH_JWKS_URL: `${authUrl}/.well-known/jwks.json`,
      AUTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
      SEARCH_AUDIENCE: TEST_AUDIENCES.search,
      GIS_AUDIENCE: TEST_AUDIENCES.gis,
      BLOB_STORE_DIR: blobDir,
      KAFKA_BROKERS: broker,
      KAFKA_CONNECT_VIA: `${broker}=${via}`,
      // Each stack its own topics and consumer groups: stacks of other test files share the Kafka peer.
      KAFKA_GROUP_PREFIX: groupPrefix,
      KAFKA_TOPIC_PREFIX: groupPrefix,
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_MAX_WAIT_MS: '50',
      SHUTDOWN_DRAIN_MS: '0',
    };
    services[n] = n === 'auth' ? new ServiceProcess(n, auth, env) : await ServiceProcess.hold(n, env);
  }
  const stack: ProcessStack = {
    services,
    urls: Object.fromEntries(names.map((n) => [n, services[n].url])) as Record<AppName, string>,
    databases,
    proxy,
    blobDir,
    close: async () => {
      await Promise.all(names.map((n) => services[n].close()));
      await proxy.stop();
    },
  };
  try {
    await Promise.all(names.map((n) => services[n].start()));
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
