import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Kafka, logLevel, Partitioners, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import { DiamondV1, newDiamondId, Topics, validateEnvelope } from '@dtp/domain';
import { createHttpApp, newServiceContext, ServiceContext } from '@dtp/service-kit';
import { kafkaTestBrokers } from '@dtp/testing';
import { ConsumeOutcome, EventTransport, InProcessTransport, KafkaTransport, RetryEventError, runConsumer, RunConsumerOptions, RunningConsumer } from '../src';
import { deepDiamondUpsertedText, diamondUpserted, eventsDatabase, logger, nestedObject, waitFor } from './helpers';

/**
 * Issue 12 item 1: one hostile event used to stop search and GIS for good (class-transformer overflowed the stack
 * outside the consumer's try block, on every redelivery). Hostile messages are published straight onto the topic;
 * they must be parked with their reasons, the next normal event must still be applied, and readiness and /metrics
 * must say what was parked (and that the consumer is degraded while it is stuck).
 */

const topic = Topics.PLATFORM_DIAMONDS;

@Module({})
class NoRoutes {}

interface ParkedRow {
  offset: string;
  reason: string;
  payload: unknown;
  raw: string | null;
}

/** A database with the consumer tables and a small read model (the record kept as jsonb, as search does). */
async function readModelDatabase(prefix: string): Promise<DataSource> {
  const { ds } = await eventsDatabase(prefix);
  await ds.query('CREATE TABLE diamonds (id text PRIMARY KEY, version_id text NOT NULL, revision integer NOT NULL, record jsonb NOT NULL)');
  return ds;
}

/** The read model's handler: stores the record; fails with a temporary error for the keys in `failFor`. */
function readModelHandler(failFor: Set<string>): RunConsumerOptions['handle'] {
  return async (event, { manager }) => {
    if (event.event_type !== 'diamond.upserted') return;
    if (failFor.has(event.key)) throw new RetryEventError('the read model store is away');
    const record = event.data as DiamondV1;
    await manager.query(
      `INSERT INTO diamonds (id, version_id, revision, record) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (id) DO UPDATE SET version_id = EXCLUDED.version_id, revision = EXCLUDED.revision, record = EXCLUDED.record`,
      [record.diamond_id, record.version_id, event.revision, JSON.stringify(record)],
    );
  };
}

/** The service kit's app for a consumer's service: /health/ready (events from the transport + the gauges), /metrics. */
async function opsApp(name: string, transport: EventTransport): Promise<{ app: NestFastifyApplication; ctx: ServiceContext }> {
  const ctx = newServiceContext(name, logger);
  ctx.readiness.add('events', () => transport.check());
  const app = await createHttpApp({ ctx, module: NoRoutes, docs: { title: name, description: 'ops only', version: '1' } });
  return { app, ctx };
}

type Ready = { status: string; checks: Record<string, string>; details?: { events?: { lag: number; parked: number; consumers: Record<string, unknown>[] } } };
const ready = async (app: NestFastifyApplication) => {
  const res = await app.inject({ method: 'GET', url: '/health/ready' });
  return { statusCode: res.statusCode, body: res.json() as Ready };
};
const parkedMetric = async (app: NestFastifyApplication, group: string, reason: string): Promise<number | undefined> => {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith('consumer_parked_total{') && l.includes(`group="${group}"`) && l.includes(`reason="${reason}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('poison messages over Kafka (real peer, real PostgreSQL)', () => {
  const prefix = `poison-${randomUUID().slice(0, 8)}.`;
  let ds: DataSource;
  let kafka: KafkaTransport;
  let producer: Producer;
  let app: NestFastifyApplication;
  let ctx: ServiceContext;
  let consumer: RunningConsumer;
  const failFor = new Set<string>();
  const group = `search-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    ds = await readModelDatabase('poison');
    kafka = new KafkaTransport({
      clientId: 'poison-test',
      brokers: kafkaTestBrokers(),
      logger,
      maxWaitTimeInMs: 50,
      sessionTimeoutMs: 6000,
      topicPrefix: prefix,
      groupPrefix: prefix,
    });
    producer = new Kafka({ clientId: 'poison-raw', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING }).producer({
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    ({ app, ctx } = await opsApp('search', kafka));
  });

  afterAll(async () => {
    await consumer?.close();
    await kafka?.close();
    await producer?.disconnect();
    await app?.close();
    await ds?.destroy();
  });

  /**
   * Publishes raw bytes straight onto the topic (as a hostile or broken producer would), one after the other, to
   * `partition` or the key's partition.
   */
  const publishRaw = async (key: string, values: (string | Buffer)[], partition?: number) => {
    for (const value of values) await producer.send({ topic: `${prefix}${topic}`, acks: -1, messages: [{ key, value, partition }] });
  };
  const parkedRows = async (key: string) =>
    (await ds.query('SELECT "offset", reason, payload, raw FROM parked_events WHERE key = $1 ORDER BY "offset"::bigint', [key])) as ParkedRow[];
  const stored = async (key: string) =>
    ((await ds.query('SELECT version_id, revision FROM diamonds WHERE id = $1', [key])) as { version_id: string; revision: number }[])[0];

  it('parks a 2,600- and a 100,000-level event, a 5 MB event and broken envelopes with their reasons; the next normal event is applied', async () => {
    const key = newDiamondId();
    const bigKey = newDiamondId();
    const normal = diamondUpserted(key, 1);
    const bigNormal = diamondUpserted(bigKey, 1);
    const fiveMb = JSON.stringify(diamondUpserted(bigKey, 1, { supplementary_tags: { blob: 'x'.repeat(5_000_000) } }));
    expect(fiveMb.length).toBeGreaterThan(5_000_000);
    // Each key on its own partition, in this order, ahead of its normal event. (The 5 MB event has a partition to
    // itself: the kcat mock keeps about 5 MiB per partition and drops the oldest messages past that.)
    await publishRaw(
      key,
      [
        deepDiamondUpsertedText(key, 1, 2_600),
        deepDiamondUpsertedText(key, 1, 100_000),
        'this is not JSON {',
        JSON.stringify({ hello: 'world' }),
        JSON.stringify({ ...diamondUpserted(key, 1), event_type: 'participant.onboarded' }),
        Buffer.from([0xff, 0xfe, 0x00, 0x01]),
        JSON.stringify(normal),
      ],
      0,
    );
    await publishRaw(bigKey, [fiveMb, JSON.stringify(bigNormal)], 1);

    const outcomes: ConsumeOutcome[] = [];
    consumer = await runConsumer({
      transport: kafka,
      topic,
      group,
      dataSource: ds,
      logger,
      registry: ctx.metrics.registry,
      maxTransientAttempts: 1000,
      stuckAfterFailures: 2,
      onSettled: (o, m) => (m.key === key || m.key === bigKey) && outcomes.push(o),
      handle: readModelHandler(failFor),
    });

    await waitFor(async () => (await stored(key)) !== undefined && (await stored(bigKey)) !== undefined, 'the normal events applied', 60_000);
    expect(await stored(key)).toEqual({ version_id: normal.data.version_id, revision: 1 });
    expect(await stored(bigKey)).toEqual({ version_id: bigNormal.data.version_id, revision: 1 });
    expect(outcomes.filter((o) => o === 'parked')).toHaveLength(7);
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(2);

    const rows = await parkedRows(key);
    expect(rows.map((r) => r.reason)).toEqual([
      'too_deep: nested more than 64 levels, at data.supplementary_tags.deep.a.a.a.a.a … (56 more)',
      expect.stringMatching(/^too_deep: nested more than 64 levels, at data\.supplementary_tags\.deep/),
      'invalid event: message value is not valid JSON',
      'invalid event: event_id must be a UUID',
      'invalid event: event_type participant.onboarded is not published on topic platform.diamonds.v1',
      'invalid event: message value is not valid JSON',
    ]);
    const [big] = await parkedRows(bigKey);
    expect(big.reason).toMatch(/^too_large: 5000\d{3} bytes, more than the 1048576 a message may have$/);
    // Too deep or too large: no payload (jsonb would refuse it, and it is the problem), the start of the text.
    for (const r of [rows[0], rows[1], big]) {
      expect(r.payload).toBeNull();
      expect(r.raw!.startsWith('{"event_id":')).toBe(true);
      expect(r.raw!.length).toBeLessThanOrEqual(64 * 1024 + 1);
    }
    expect(rows[2]).toEqual(expect.objectContaining({ payload: null, raw: 'this is not JSON {' }));
    expect(rows[3].payload).toEqual({ hello: 'world' });
    // Bytes that are not UTF-8 JSON, a NUL among them: kept as text with the NUL escaped.
    expect(rows[5].raw).toContain('\\u0000');

    expect(consumer.health()).toEqual({
      lag: 0,
      stuckPartitions: 0,
      degraded: false,
      parked: { too_deep: 2, too_large: 1, invalid: 4 },
      assignedPartitions: [0, 1, 2, 3],
    });
    expect(await parkedMetric(app, group, 'too_deep')).toBe(2);
    expect(await parkedMetric(app, group, 'too_large')).toBe(1);
    expect(await parkedMetric(app, group, 'invalid')).toBe(4);
    const r = await ready(app);
    expect(r.statusCode).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      checks: { events: 'up' },
      details: { events: { lag: 0, parked: 7, consumers: [{ group, topic, lag: 0, stuck_partitions: 0, parked: 7, degraded: false }] } },
    });
  });

  it('readiness says events degraded (stuck, with the lag and the parked count) while one message keeps failing, and up again after', async () => {
    const stuckKey = newDiamondId();
    failFor.add(stuckKey);
    const stuckEvent = diamondUpserted(stuckKey, 1);
    await publishRaw(stuckKey, [JSON.stringify(stuckEvent)]);
    // While it fails (a temporary error, retried in place), the events component is degraded; the service stays ready.
    await waitFor(async () => (await ready(app)).body.checks.events.startsWith('degraded'), 'events degraded', 30_000);
    const degraded = await ready(app);
    expect(degraded.statusCode).toBe(200);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.checks.events).toMatch(new RegExp(`^degraded: ${group} on ${topic} stuck \\(1 partition\\), lag [1-9]\\d*, parked 7$`));
    expect(consumer.health()).toEqual(expect.objectContaining({ stuckPartitions: 1, degraded: true }));

    failFor.delete(stuckKey);
    await waitFor(async () => (await stored(stuckKey)) !== undefined, 'the stuck event applied once it can be', 30_000);
    await waitFor(async () => (await ready(app)).body.checks.events === 'up', 'events up again', 30_000);
    expect((await ready(app)).body.status).toBe('ok');
  });
});

describe('poison messages on the in-process bus (npm start): values that are objects already', () => {
  let ds: DataSource;
  let transport: InProcessTransport;
  let app: NestFastifyApplication;
  let ctx: ServiceContext;
  let consumer: RunningConsumer;
  const group = 'search';

  beforeAll(async () => {
    ds = await readModelDatabase('poisonip');
    transport = new InProcessTransport();
    ({ app, ctx } = await opsApp('search', transport));
  });
  afterAll(async () => {
    await consumer?.close();
    await transport?.close();
    await app?.close();
    await ds?.destroy();
  });

  it('parks deep, large, NUL-holding and undecodable values with their reasons, and applies the next normal event', async () => {
    const key = newDiamondId();
    const normal = diamondUpserted(key, 2);
    const throwsInValidation = diamondUpserted(key, 1, { participant_id: 'makes-the-validator-throw' });
    consumer = await runConsumer({
      transport,
      topic,
      group,
      dataSource: ds,
      logger,
      registry: ctx.metrics.registry,
      // A validator that throws for one marked message: whatever escapes the checks is still parked, never thrown.
      validate: (t, value) => {
        if ((value as { data?: { participant_id?: string } }).data?.participant_id === 'makes-the-validator-throw') {
          throw new RangeError('Maximum call stack size exceeded');
        }
        return validateEnvelope(t, value);
      },
      handle: readModelHandler(new Set()),
    });
    await transport.publish([
      { topic, key, value: diamondUpserted(key, 1, { supplementary_tags: { deep: nestedObject(2_600) } }) },
      { topic, key, value: diamondUpserted(key, 1, { supplementary_tags: { deep: nestedObject(100_000) } }) },
      { topic, key, value: diamondUpserted(key, 1, { supplementary_tags: { blob: 'x'.repeat(2 * 1024 * 1024) } }) },
      // A valid event whose record holds a NUL: jsonb refuses it in the handler (not a temporary error): parked.
      { topic, key, value: diamondUpserted(key, 1, { participant_id: 'ERP\u0000NUL' }) },
      // An invalid one holding a NUL: its payload cannot be stored as jsonb, so an escaped excerpt is kept instead.
      { topic, key, value: { ...diamondUpserted(key, 1), event_type: 'x\u0000y' } },
      { topic, key, value: throwsInValidation },
      { topic, key, value: normal },
    ]);
    await waitFor(() => consumer.counts.applied === 1, 'the normal event applied', 60_000);
    expect(consumer.counts).toEqual(expect.objectContaining({ applied: 1, parked: 6 }));

    const rows = (await ds.query('SELECT "offset", reason, payload, raw FROM parked_events WHERE key = $1 ORDER BY "offset"::bigint', [key])) as ParkedRow[];
    expect(rows.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^too_deep: nested more than 64 levels, at data\.supplementary_tags\.deep\./),
      expect.stringMatching(/^too_deep: nested more than 64 levels, at data\.supplementary_tags\.deep\./),
      expect.stringMatching(/^too_large: about \d+ bytes as JSON, more than the 1048576 a message may have$/),
      expect.stringMatching(/^handler failed: .*(unsupported Unicode escape sequence|\\u0000 cannot be converted to text)/),
      expect.stringMatching(/^invalid event: event_type x/),
      'undecodable: decoding or validating it failed: Maximum call stack size exceeded',
    ]);
    // The deep values are kept as a bounded excerpt, written without recursion.
    expect(rows[1].payload).toBeNull();
    expect(rows[1].raw!.startsWith('{"event_id":')).toBe(true);
    expect(rows[1].raw!.endsWith('…')).toBe(true);
    // The NUL-holding invalid envelope: no jsonb payload, an excerpt with the NUL escaped.
    expect(rows[4].payload).toBeNull();
    expect(rows[4].raw).toContain('"event_type":"x\\u0000y"');
    expect(rows[5].payload).toEqual(throwsInValidation);

    expect(((await ds.query('SELECT version_id FROM diamonds WHERE id = $1', [key])) as { version_id: string }[])[0].version_id).toBe(normal.data.version_id);
    expect(consumer.health().parked).toEqual({ too_deep: 2, too_large: 1, handler_error: 1, invalid: 1, undecodable: 1 });
    expect(await parkedMetric(app, group, 'undecodable')).toBe(1);
    expect(await parkedMetric(app, group, 'handler_error')).toBe(1);
    const r = await ready(app);
    expect(r.statusCode).toBe(200);
    expect(r.body.checks.events).toBe('up');
    expect(r.body.details?.events).toEqual(expect.objectContaining({ lag: 0, parked: 6 }));
  });
});
