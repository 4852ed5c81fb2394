/**
 * Database down (issue 12, "Database down: 503 with Retry-After, readiness 503, automatic recovery"): a request
 * that fails because PostgreSQL cannot be reached answers 503 `{message, request_id}` with `Retry-After`, never
 * 500; readiness is 503 meanwhile; the service recovers by itself when the database is back. Real PostgreSQL (the
 * test run's server), real HTTP; the database is made unreachable for one service only: through a TCP proxy the
 * test cuts, or by closing the database to connections and terminating its backends.
 */
import { Controller, Get, Inject, Module } from '@nestjs/common';
import { Client } from 'pg';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { createDataSource, databaseCheck, withDatabase } from '@dtp/database';
import {
  BaseServiceConfig,
  createHttpApp,
  isDependencyUnavailable,
  listenService,
  loadConfig,
  newServiceContext,
  RunningService,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
} from '@dtp/service-kit';
import { startTestStack } from '@dtp/test-stack';
import { createTestDatabase, participantWithToken, TestStack, testServerUrl } from '@dtp/testing';
import { TcpProxy } from './support/tcp-proxy';

const DS = Symbol('DS');

@Controller('rows')
class RowsController {
  constructor(@Inject(DS) private readonly ds: DataSource) {}

  @Get()
  async one() {
    const rows = (await this.ds.query('SELECT 1 AS one')) as { one: number }[];
    return { one: rows[0].one };
  }

  /** Through a transaction (a query runner that connects first), as the write paths of the services do. */
  @Get('tx')
  async tx() {
    return this.ds.transaction(async (m) => ({ one: ((await m.query('SELECT 1 AS one')) as { one: number }[])[0].one }));
  }
}

/** Polls `check` until it returns true, at most `ms` (then fails naming `what`). */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function admin<T>(work: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A small service built with the kit: its own database, a readiness check on it, two routes that query. */
async function startKitService(databaseUrl: string): Promise<{ service: RunningService; ds: DataSource }> {
  const ctx = newServiceContext('kit-db', pino({ level: 'silent' }));
  const ds = createDataSource({ url: databaseUrl, service: 'kit-db', entities: [], migrations: [], poolSize: 4 });
  await ds.initialize();
  ctx.readiness.add('database', databaseCheck(ds));
  @Module({ controllers: [RowsController], providers: [{ provide: DS, useValue: ds }] })
  class RowsModule {}
  const app = await createHttpApp({ ctx, module: RowsModule, docs: { title: 't', description: 'd', version: '1' } });
  const config = loadConfig('kit-db', BaseServiceConfig, { PORT: '0', HOST: '127.0.0.1' });
  const service = await listenService({ name: 'kit-db', app, config, ctx, onClose: () => ds.destroy() });
  return { service, ds };
}

async function expectUnavailable(res: Response): Promise<void> {
  const body = (await res.json()) as Record<string, unknown>;
  expect([res.status, body]).toEqual([503, { message: expect.stringMatching(/unavailable/i), request_id: expect.any(String) }]);
  expect(res.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  expect(res.headers.get('x-request-id')).toBe(body.request_id);
}

describe('a kit service whose database connection is cut (TCP proxy)', () => {
  let proxy: TcpProxy;
  let service: RunningService;

  beforeAll(async () => {
    const db = await createTestDatabase('kitdown');
    const target = new URL(db);
    proxy = await TcpProxy.start(target.hostname, Number(target.port));
    ({ service } = await startKitService(proxy.rewrite(db)));
  });
  afterAll(async () => {
    await proxy?.restore();
    await service?.close();
    await proxy?.close();
  });

  const get = (path: string) => fetch(`${service.url}${path}`);

  it('answers 200 while the database is reachable', async () => {
    expect((await get('/rows')).status).toBe(200);
    expect((await get('/rows/tx')).status).toBe(200);
    expect((await get('/health/ready')).status).toBe(200);
  });

  it('answers 503 with Retry-After (never 500) on every querying route while it is cut, and readiness is 503', async () => {
    await proxy.cut();
    // The pooled connections were ended mid-stream, new ones are refused: each request below meets one or the other.
    for (let i = 0; i < 3; i++) {
      await expectUnavailable(await get('/rows'));
      await expectUnavailable(await get('/rows/tx'));
    }
    const ready = await get('/health/ready');
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).toMatch(/^down: /);
    // The service itself still answers.
    expect((await get('/health/live')).status).toBe(200);
  });

  it('recovers by itself once the database is reachable again', async () => {
    await proxy.restore();
    await until('GET /rows answers 200 again', async () => (await get('/rows')).status === 200);
    expect((await get('/rows/tx')).status).toBe(200);
    await until('readiness is 200 again', async () => (await get('/health/ready')).status === 200);
  });
});

describe('a kit service whose database stops accepting connections (ALLOW_CONNECTIONS false, backends terminated)', () => {
  let name: string;
  let service: RunningService;

  beforeAll(async () => {
    const db = await createTestDatabase('kitclosed');
    name = decodeURIComponent(new URL(db).pathname.slice(1));
    ({ service } = await startKitService(db));
  });
  afterAll(async () => {
    await admin((c) => c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`));
    await service?.close();
  });

  const get = (path: string) => fetch(`${service.url}${path}`);

  it('answers 503 with Retry-After while closed (57P01 on the terminated connections, then refused connects), then 200 again', async () => {
    expect((await get('/rows')).status).toBe(200);
    await admin(async (c) => {
      await c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    });
    for (let i = 0; i < 3; i++) {
      await expectUnavailable(await get('/rows'));
      await expectUnavailable(await get('/rows/tx'));
    }
    expect((await get('/health/ready')).status).toBe(503);
    await admin((c) => c.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`));
    await until('GET /rows answers 200 again', async () => (await get('/rows')).status === 200);
    await until('readiness is 200 again', async () => (await get('/health/ready')).status === 200);
  });
});

describe('search, a real service, with its database cut', () => {
  let stack: TestStack;
  let proxy: TcpProxy;
  let token: string;

  beforeAll(async () => {
    const db = await createTestDatabase('searchdown');
    const target = new URL(db);
    proxy = await TcpProxy.start(target.hostname, Number(target.port));
    stack = await startTestStack({ services: ['auth', 'search'], env: { search: { DATABASE_URL: proxy.rewrite(db) } } });
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
  });
  afterAll(async () => {
    await proxy?.restore();
    await stack?.close();
    await proxy?.close();
  });

  const lookup = () => fetch(`${stack.urls.search}/v1/diamonds/01arz3ndektsv4rrffq69g5fav`, { headers: { authorization: token } });

  it('answers a read 503 with Retry-After while the database is cut, readiness 503, and the same answer as before once it is back', async () => {
    const before = await lookup();
    const beforeBody = (await before.json()) as unknown;
    expect(before.status).toBeLessThan(500);
    await proxy.cut();
    await expectUnavailable(await lookup());
    await expectUnavailable(await lookup());
    expect((await fetch(`${stack.urls.search}/health/ready`)).status).toBe(503);
    await proxy.restore();
    await until('the read answers as before', async () => (await lookup()).status === before.status);
    expect(await (await lookup()).json()).toEqual(beforeBody);
    await until('readiness is 200 again', async () => (await fetch(`${stack.urls.search}/health/ready`)).status === 200);
  });
});

describe('isDependencyUnavailable', () => {
  const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['connection terminated', new Error('Connection terminated unexpectedly')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
    ['connect timeout', new Error('Connection terminated due to connection timeout')],
    ['SQLSTATE 08006', pgError('08006')],
    ['SQLSTATE 08001', pgError('08001')],
    ['admin shutdown 57P01', pgError('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown 57P02', pgError('57P02')],
    ['cannot connect now 57P03', pgError('57P03', 'the database system is starting up')],
    ['too many connections 53300', pgError('53300', 'sorry, too many clients already')],
    ['closed database', pgError('55000', 'database "x" is not currently accepting connections')],
    ['wrapped in a cause', new Error('could not register', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })],
    ['TypeORM driverError', Object.assign(new Error('query failed'), { driverError: pgError('57P01') })],
    ['AggregateError', new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all attempts failed')],
  ])('%s: unavailable', (_name, err) => {
    expect(isDependencyUnavailable(err)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['a unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', pgError('42601')],
    ['another 55000', pgError('55000', 'cannot execute in a read-only transaction state')],
    ['a string', 'ECONNREFUSED'],
    ['null', null],
  ])('%s: not unavailable', (_name, err) => {
    expect(isDependencyUnavailable(err)).toBe(false);
  });

  it('stops on a cause cycle', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(isDependencyUnavailable(a)).toBe(false);
  });
});
