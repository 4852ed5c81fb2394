import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pino from 'pino';
import { createDataSource, runMigrations } from '@dtp/database';
import { KafkaTransport, OutgoingMessage } from '@dtp/events';
import { createTestDatabase, kafkaTestBrokers } from '@dtp/testing';
import { rebuildReadModel, ReadModelRepository, searchDbOptions } from '../src/app';
import { deleted, diamondRecord, upserted } from './support';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const root = path.join(__dirname, '..', '..', '..');

/**
 * The CLI tests' budget: each test gets this long as a whole (its Jest timeout), and each run of the CLI what is
 * left of it, less a margin for the test's own assertions. A loaded CI machine (load average 10-16) spends most of
 * it loading TypeScript and reaching the Kafka peer; no single run gets a guessed limit of its own.
 */
const CLI_TEST_BUDGET_MS = 300_000;
const MARGIN_MS = 5_000;

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run search:rebuild -- <args>` as a child process, killed if it outlives `deadline` (its test's budget). */
function runCli(args: string[], env: Record<string, string>, deadline: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/rebuild-search.ts', ...args], {
      cwd: root,
      env: { ...process.env, KAFKA_BROKERS: kafkaTestBrokers().join(','), KAFKA_SESSION_TIMEOUT_MS: '6000', LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(1000, deadline - Date.now() - MARGIN_MS));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL')
        reject(new Error(`search:rebuild ${args.join(' ')} outlived its test's budget (${CLI_TEST_BUDGET_MS} ms); stderr:\n${stderr.slice(-2000)}`));
      else resolve({ status, stdout, stderr });
    });
  });
}

describe('rebuilding the search read model by replaying the topic (Kafka peer)', () => {
  const topic = `platform.diamonds.v1.rebuild-${randomUUID()}`;
  let kafka: KafkaTransport;
  let url: string;
  const expected = new Map<string, string>();

  beforeAll(async () => {
    kafka = new KafkaTransport({ clientId: 'rebuild-test', brokers: kafkaTestBrokers(), logger, maxWaitTimeInMs: 50, sessionTimeoutMs: 6000 });
    const messages: OutgoingMessage[] = [];
    for (let i = 0; i < 30; i += 1) {
      const r1 = diamondRecord();
      messages.push({ topic, key: r1.diamond_id, value: upserted(r1, 1) });
      expected.set(r1.diamond_id, r1.version_id);
      if (i % 3 === 0) {
        const r2 = { ...r1, version_id: randomUUID(), unlock_status: 'unlocked' as const };
        messages.push({ topic, key: r1.diamond_id, value: upserted(r2, 2) });
        expected.set(r1.diamond_id, r2.version_id);
      }
      if (i % 6 === 1) {
        messages.push({ topic, key: r1.diamond_id, value: deleted(r1.diamond_id, 2) }, { topic, key: r1.diamond_id, value: null });
        expected.delete(r1.diamond_id);
      }
    }
    messages.push({ topic, key: 'junk', value: { hello: 'not an envelope' } });
    await kafka.publish(messages);
    url = await createTestDatabase('rebuild');
    await runMigrations(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 4 }));
  });

  afterAll(async () => {
    await kafka?.close();
  });

  it('drops the read model, replays everything and ends with the latest record of every live diamond', async () => {
    const ds = createDataSource(searchDbOptions({ DATABASE_URL: url, DB_POOL_SIZE: 4 }));
    await ds.initialize();
    try {
      const repo = new ReadModelRepository(ds);
      const stale = diamondRecord();
      await repo.upsert(stale, 7); // not in the topic: must disappear
      const progress: number[] = [];
      const result = await rebuildReadModel({ dataSource: ds, transport: kafka, logger, topic, onProgress: (done) => progress.push(done) });
      expect(result).toEqual({ messages: 30 + 10 + 10 + 1, count: 25, parked: 1 });
      expect(progress[progress.length - 1]).toBe(51);
      expect(await repo.versions()).toEqual(expected);
      expect(await repo.find(stale.diamond_id)).toBeNull();
    } finally {
      await ds.destroy();
    }
  });

  it(
    'the CLI (npm run search:rebuild) prints the count and checks it against --expect-count',
    async () => {
      const deadline = Date.now() + CLI_TEST_BUDGET_MS;
      const run = (expect: number) => runCli(['--topic', topic, '--expect-count', String(expect), '--no-progress'], { SEARCH_DATABASE_URL: url }, deadline);
      const ok = await run(25);
      expect(ok.stdout).toMatch(/rebuilt: 25 diamonds from 51 events/);
      expect(ok.stdout).toMatch(/count matches --expect-count: 25/);
      expect(ok.status).toBe(0);
      const bad = await run(26);
      expect(bad.stdout).toMatch(/MISMATCH: 25 diamonds in search, 26 expected/);
      expect(bad.status).toBe(1);
    },
    CLI_TEST_BUDGET_MS,
  );

  it(
    'the CLI waits for a broker that does not answer yet, and gives up after --broker-wait with one clear line',
    async () => {
      const deadline = Date.now() + CLI_TEST_BUDGET_MS;
      const db = await createTestDatabase('rebuildwait');
      // Nothing listens there: every attempt fails at once, and the CLI keeps asking for its budget (3 s) only.
      const run = await runCli(['--broker-wait', '3', '--no-progress'], { SEARCH_DATABASE_URL: db, KAFKA_BROKERS: '127.0.0.1:9' }, deadline);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/Kafka did not answer \(attempt 1: /);
      expect(run.stderr).toMatch(/Kafka did not answer within 3 s \(--broker-wait\)/);
    },
    CLI_TEST_BUDGET_MS,
  );

  it(
    'honours KAFKA_TOPIC_PREFIX and KAFKA_GROUP_PREFIX: a prefixed deployment replays its own topic (issue 16)',
    async () => {
      const deadline = Date.now() + CLI_TEST_BUDGET_MS;
      const prefix = `rebuild-pfx-${randomUUID()}.`;
      const prefixed = new KafkaTransport({
        clientId: 'rebuild-test-prefixed',
        brokers: kafkaTestBrokers(),
        logger,
        topicPrefix: prefix,
        sessionTimeoutMs: 6000,
      });
      const records = Array.from({ length: 5 }, () => diamondRecord());
      try {
        await prefixed.publish(records.map((r) => ({ topic: 'platform.diamonds.v1', key: r.diamond_id, value: upserted(r, 1) })));
      } finally {
        await prefixed.close();
      }
      const db = await createTestDatabase('rebuildprefix');
      await runMigrations(searchDbOptions({ DATABASE_URL: db, DB_POOL_SIZE: 2 }));
      // No --topic: the default platform.diamonds.v1, under the deployment's prefix.
      const run = await runCli(
        ['--expect-count', '5', '--no-progress'],
        { SEARCH_DATABASE_URL: db, KAFKA_TOPIC_PREFIX: prefix, KAFKA_GROUP_PREFIX: prefix },
        deadline,
      );
      expect(run.stdout).toMatch(/rebuilt: 5 diamonds from 5 events/);
      expect(run.stderr).toContain(`KAFKA_TOPIC_PREFIX "${prefix}"`);
      expect(run.status).toBe(0);
    },
    CLI_TEST_BUDGET_MS,
  );

  it(
    '--help prints the usage and exits 0; a bad option or value exits 2 before any connection',
    async () => {
      const deadline = Date.now() + CLI_TEST_BUDGET_MS;
      const help = await runCli(['--help'], { KAFKA_BROKERS: '127.0.0.1:9' }, deadline);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/Usage: search:rebuild \[options\]/);
      expect(help.stdout).toContain('--expect-count <n>');
      expect(help.stdout).toContain('--broker-wait <seconds>');
      for (const bad of [['--nope'], ['--expect-count', 'ten'], ['--topic'], ['--broker-wait', '0']]) {
        const run = await runCli(bad, { SEARCH_DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none', KAFKA_BROKERS: '127.0.0.1:9' }, deadline);
        expect([bad, run.status]).toEqual([bad, 2]);
        expect(run.stderr).toMatch(/error: /);
      }
    },
    CLI_TEST_BUDGET_MS,
  );
});
