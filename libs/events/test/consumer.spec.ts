import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { Topics } from '@dtp/domain';
import { kafkaTestBrokers } from '@dtp/testing';
import {
  CLAIM_SQL,
  ConsumeOutcome,
  InProcessTransport,
  KafkaTransport,
  ParkEventError,
  RetryEventError,
  runConsumer,
  RunningConsumer,
  RunConsumerOptions,
} from '../src';
import { eventsDatabase, logger, newId, onboarded, waitFor } from './helpers';

const topic = Topics.AUTH_PARTICIPANTS;

describe.each([
  ['one message per transaction', false, false],
  ['batches (one transaction per run of messages)', true, false],
  ['batches given to handleMany (each run in one call)', true, true],
])('runConsumer (real PostgreSQL): %s', (_mode, batch, many) => {
  let ds: DataSource;
  let transport: InProcessTransport;
  let consumer: RunningConsumer | undefined;
  let registry: Registry;

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('consumer'));
  });
  afterAll(async () => {
    await ds?.destroy();
  });
  beforeEach(() => {
    transport = new InProcessTransport();
    registry = new Registry();
  });
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await transport.close();
  });

  const settled: { outcome: ConsumeOutcome; key: string }[] = [];
  const start = async (handle?: RunConsumerOptions['handle'], extra: Partial<RunConsumerOptions> = {}) => {
    settled.length = 0;
    const one: NonNullable<RunConsumerOptions['handle']> =
      handle ??
      (async (event, { manager }) => {
        if (event.event_type !== 'participant.onboarded') throw new ParkEventError('unexpected');
        await manager.query(
          `INSERT INTO participants (id, name) VALUES ($1, $2)
           ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, applied = participants.applied + 1`,
          [event.data.participant_id, event.data.name],
        );
      });
    consumer = await runConsumer({
      transport,
      topic,
      group: `g-${randomUUID()}`,
      dataSource: ds,
      logger,
      registry,
      batch,
      onSettled: (outcome, m) => settled.push({ outcome, key: m.key }),
      // handleMany: the same effects, event by event, so every rule below holds for it too.
      ...(many
        ? {
            handleMany: async (events, ctx) => {
              for (const e of events) await one(e.envelope, { ...ctx, message: e.message, heldRevision: e.heldRevision });
            },
          }
        : { handle: one }),
      ...extra,
    } as RunConsumerOptions);
    return consumer;
  };
  const send = (key: string, value: unknown) => transport.publish([{ topic, key, value }]);
  const row = async (id: string) => ((await ds.query('SELECT name, applied FROM participants WHERE id = $1', [id])) as { name: string; applied: number }[])[0];
  const parked = async (key: string) =>
    (await ds.query('SELECT consumer, topic, key, partition, "offset", payload, raw, reason FROM parked_events WHERE key = $1 ORDER BY id', [key])) as {
      reason: string;
      payload: unknown;
      raw: string | null;
      offset: string;
    }[];
  const metricValue = async (name: string) => {
    const m = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    return m.reduce((s, v) => s + v.value, 0);
  };
  /** consumer_parked_total by its reason label. */
  const parkedMetric = async () => {
    const m = (await registry.getSingleMetric('consumer_parked_total')?.get())?.values ?? [];
    return Object.fromEntries(m.filter((v) => v.value > 0).map((v) => [v.labels.reason, v.value]));
  };

  it('applies newer revisions once, skips duplicates and older ones, stores progress with the effect', async () => {
    const c = await start();
    const id = newId();
    await send(id, onboarded(id, 1, 'one'));
    await send(id, onboarded(id, 2, 'two'));
    await send(id, onboarded(id, 2, 'two again'));
    await send(id, onboarded(id, 1, 'one again'));
    await send(id, onboarded(id, 4, 'four')); // a gap (compacted topic): newer, applied
    await waitFor(() => settled.length === 5, '5 settled');
    expect(settled.map((s) => s.outcome)).toEqual(['applied', 'applied', 'duplicate', 'duplicate', 'applied']);
    expect(await row(id)).toEqual({ name: 'four', applied: 3 });
    const state = await ds.query('SELECT consumer, revision FROM consumer_state WHERE key = $1', [id]);
    expect(state).toEqual([{ consumer: c.group, revision: '4' }]);
    expect(c.counts).toEqual(expect.objectContaining({ applied: 3, duplicate: 2, parked: 0 }));
    expect(await metricValue('consumer_applied_total')).toBe(3);
    expect(await metricValue('consumer_duplicates_total')).toBe(2);
  });

  it('parks an invalid message (bad payload, bad JSON, key mismatch) with the reason and goes on', async () => {
    await start();
    const id = newId();
    const bad = { ...onboarded(id, 1), data: { participant_id: id, name: 'x', role: 'emperor', provenance: null } };
    await send(id, bad);
    await send(id, '{not json');
    await send(id, onboarded(newId(), 1));
    await send(id, onboarded(id, 1, 'good'));
    await waitFor(() => settled.length === 4, '4 settled');
    expect(settled.map((s) => s.outcome)).toEqual(['parked', 'parked', 'parked', 'applied']);
    const rows = await parked(id);
    expect(rows.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^invalid event: invalid data: .*role/),
      'invalid event: message value is not valid JSON',
      expect.stringMatching(/differs from envelope key/),
    ]);
    expect(rows[0].payload).toEqual(bad);
    expect(rows[1]).toEqual(expect.objectContaining({ payload: null, raw: '{not json', offset: '1' }));
    expect(await row(id)).toEqual({ name: 'good', applied: 1 });
    expect(await metricValue('consumer_parked_total')).toBe(3);
    expect(await parkedMetric()).toEqual({ invalid: 3 });
  });

  it('parks on ParkEventError and on an ordinary (not temporary) handler error at once, rolling back the partial effect', async () => {
    const refuse = newId();
    const broken = newId();
    let brokenCalls = 0;
    await start(async (event, { manager }) => {
      if (event.event_type !== 'participant.onboarded') return;
      await manager.query('INSERT INTO participants (id, name) VALUES ($1, $2)', [event.data.participant_id, event.data.name]);
      if (event.data.participant_id === refuse) throw new ParkEventError('recipient unknown for good');
      if (event.data.participant_id === broken) {
        brokenCalls += 1;
        throw new TypeError('bug in handler');
      }
    });
    await send(refuse, onboarded(refuse, 1));
    await send(broken, onboarded(broken, 1));
    const ok = newId();
    await send(ok, onboarded(ok, 1, 'ok'));
    await waitFor(() => settled.length === 3, '3 settled');
    expect(settled.map((s) => s.outcome)).toEqual(['parked', 'parked', 'applied']);
    // Once alone (+1 when it first came in a batch, which then fell back to single messages).
    expect(brokenCalls).toBeGreaterThanOrEqual(1);
    expect(brokenCalls).toBeLessThanOrEqual(2);
    expect((await parked(refuse))[0].reason).toBe('recipient unknown for good');
    expect((await parked(broken))[0].reason).toBe('handler failed: bug in handler');
    expect(await parkedMetric()).toEqual({ refused: 1, handler_error: 1 });
    expect(await row(refuse)).toBeUndefined();
    expect(await row(broken)).toBeUndefined();
    expect(await row(ok)).toEqual({ name: 'ok', applied: 1 });
    // Parked events hold no progress: a corrected redelivery can still apply.
    expect(await ds.query('SELECT 1 FROM consumer_state WHERE key = $1', [refuse])).toEqual([]);
  });

  it('retries temporary failures (database errors, RetryEventError) in place, not parking them below maxTransientAttempts', async () => {
    const id = newId();
    let calls = 0;
    await start(async (event, { manager }) => {
      if (event.event_type !== 'participant.onboarded') return;
      calls += 1;
      if (calls <= 3) throw Object.assign(new Error('connection terminated unexpectedly'), { code: '08006' });
      if (calls <= 8) throw new RetryEventError('blob store away');
      await manager.query('INSERT INTO participants (id, name) VALUES ($1, $2)', [event.data.participant_id, event.data.name]);
    });
    await send(id, onboarded(id, 1, 'eventually'));
    await waitFor(() => settled.length === 1, 'settled', 30_000);
    expect(settled[0].outcome).toBe('applied');
    expect(calls).toBeGreaterThanOrEqual(9);
    expect(await parked(id)).toEqual([]);
    expect(await row(id)).toEqual({ name: 'eventually', applied: 1 });
  });

  it('parks a message that keeps failing with a temporary error after maxTransientAttempts, and the partition moves on', async () => {
    const stuck = newId();
    const next = newId();
    let stuckCalls = 0;
    const c = await start(
      async (event, { manager }) => {
        if (event.event_type !== 'participant.onboarded') return;
        if (event.key === stuck) {
          stuckCalls += 1;
          throw new RetryEventError('the blob store is away for good');
        }
        await manager.query('INSERT INTO participants (id, name) VALUES ($1, $2)', [event.data.participant_id, event.data.name]);
      },
      { maxTransientAttempts: 4, stuckAfterFailures: 2 },
    );
    await send(stuck, onboarded(stuck, 1));
    // While it fails again and again, the consumer reports its partition stuck (readiness: degraded).
    await waitFor(() => c.health().stuckPartitions === 1, 'stuck partition');
    expect(c.health()).toEqual(expect.objectContaining({ degraded: true, stuckPartitions: 1 }));
    await send(next, onboarded(next, 1, 'after'));
    await waitFor(() => settled.length === 2, 'both settled', 30_000);
    expect(settled.map((s) => s.outcome)).toEqual(['parked', 'applied']);
    expect(stuckCalls).toBeGreaterThanOrEqual(4);
    expect((await parked(stuck))[0].reason).toBe(
      'retries_exhausted: failed 4 times with a temporary error while the database answered: the blob store is away for good',
    );
    expect(await row(next)).toEqual({ name: 'after', applied: 1 });
    expect(c.health()).toEqual({ lag: 0, stuckPartitions: 0, degraded: false, parked: { retries_exhausted: 1 } });
    expect(await parkedMetric()).toEqual({ retries_exhausted: 1 });
  });

  it('tombstones go to onTombstone in a transaction, or are skipped without it', async () => {
    const id = newId();
    const seen: (number | null)[] = [];
    await start(undefined, {
      onTombstone: async (key, { manager, heldRevision }) => {
        seen.push(heldRevision);
        await manager.query('DELETE FROM participants WHERE id = $1', [key]);
      },
    });
    await send(id, onboarded(id, 1));
    await send(id, null);
    await waitFor(() => settled.length === 2, 'tombstone');
    expect(settled.map((s) => s.outcome)).toEqual(['applied', 'tombstone']);
    expect(seen).toEqual([1]);
    expect(await row(id)).toBeUndefined();
    await consumer!.close();

    await start(undefined, { fromBeginning: false });
    await send(id, null);
    await waitFor(() => settled.length === 1, 'skipped tombstone');
    expect(settled[0].outcome).toBe('tombstone_skipped');
  });

  it('keeps progress per state name: a fresh group with the same stateName skips what is held', async () => {
    const id = newId();
    await send(id, onboarded(id, 1, 'first'));
    await start(undefined, { stateName: 'shared-state' });
    await waitFor(() => settled.length === 1, 'first');
    await consumer!.close();
    await start(undefined, { stateName: 'shared-state' }); // another group: reads from the beginning
    await send(id, onboarded(id, 2, 'second'));
    await waitFor(() => settled.length === 2, 'replay');
    expect(settled.map((s) => s.outcome)).toEqual(['duplicate', 'applied']);
    expect(await row(id)).toEqual({ name: 'second', applied: 2 });
  });

  it('works the same over Kafka: redelivered duplicates are absorbed', async () => {
    const kafka = new KafkaTransport({ clientId: 'consumer-test', brokers: kafkaTestBrokers(), logger, maxWaitTimeInMs: 50, sessionTimeoutMs: 6000 });
    const kafkaTopic = `${topic}`;
    try {
      const ids = [newId(), newId(), newId()];
      const messages = ids.flatMap((id) => [1, 2, 2, 3, 1].map((rev) => ({ topic: kafkaTopic, key: id, value: onboarded(id, rev, `r${rev}`) })));
      await kafka.publish(messages);
      settled.length = 0;
      const outcomes: ConsumeOutcome[] = [];
      const c = await runConsumer({
        transport: kafka,
        topic: kafkaTopic,
        group: `g-${randomUUID()}`,
        dataSource: ds,
        logger,
        batch,
        onSettled: (o, m) => ids.includes(m.key) && outcomes.push(o),
        handle: async (event, { manager }) => {
          if (event.event_type !== 'participant.onboarded') return;
          await manager.query(
            `INSERT INTO participants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, applied = participants.applied + 1`,
            [event.data.participant_id, event.data.name],
          );
        },
      });
      await waitFor(() => outcomes.length === 15, 'kafka messages', 30_000);
      await c.close();
      for (const id of ids) expect(await row(id)).toEqual({ name: 'r3', applied: 3 });
      expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(6);
    } finally {
      await kafka.close();
    }
  });

  it('claims as if one message at a time: held revisions, duplicates, repeated keys and a tombstone inside one batch', async () => {
    const [a, x, y, z] = [newId(), newId(), newId(), newId()];
    const calls: [string, number, number | null][] = [];
    await start(async (event, { heldRevision }) => {
      calls.push([event.key, event.revision, heldRevision]);
    });
    await send(a, onboarded(a, 3, 'a3'));
    await waitFor(() => settled.length === 1, 'a3 settled');
    await transport.publish([
      { topic, key: x, value: onboarded(x, 1, 'x1') },
      { topic, key: a, value: onboarded(a, 2, 'a2') }, // older than the held 3
      { topic, key: y, value: onboarded(y, 1, 'y1') },
      { topic, key: x, value: onboarded(x, 2, 'x2') }, // the same key again: sees x1's claim
      { topic, key: x, value: onboarded(x, 2, 'x2 again') },
      { topic, key: a, value: onboarded(a, 5, 'a5') },
      { topic, key: y, value: null }, // a tombstone (skipped: no onTombstone) between events
      { topic, key: y, value: onboarded(y, 2, 'y2') },
      { topic, key: z, value: onboarded(z, 1, 'z1') },
    ]);
    await waitFor(() => settled.length === 10, '10 settled');
    expect(settled.slice(1).map((s) => s.outcome)).toEqual([
      'applied',
      'duplicate',
      'applied',
      'applied',
      'duplicate',
      'applied',
      'tombstone_skipped',
      'applied',
      'applied',
    ]);
    expect(calls).toEqual([
      [a, 3, null],
      [x, 1, null],
      [y, 1, null],
      [x, 2, 1],
      [a, 5, 3],
      [y, 2, 1],
      [z, 1, null],
    ]);
    const state = (await ds.query('SELECT key, revision FROM consumer_state WHERE key = ANY($1) ORDER BY key', [[a, x, y, z]])) as {
      key: string;
      revision: string;
    }[];
    expect(Object.fromEntries(state.map((r) => [r.key, Number(r.revision)]))).toEqual({ [a]: 5, [x]: 2, [y]: 2, [z]: 1 });
  });

  it('a batch with a message to park and one failing handler still applies the others exactly once, in order', async () => {
    const a = newId();
    const b = newId();
    let bFails = 1;
    await start(async (event, { manager }) => {
      if (event.event_type !== 'participant.onboarded') return;
      if (event.key === b && bFails > 0) {
        bFails -= 1;
        throw new RetryEventError('b not yet');
      }
      await manager.query(
        `INSERT INTO participants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, applied = participants.applied + 1`,
        [event.data.participant_id, event.data.name],
      );
    });
    await transport.publish([
      { topic, key: a, value: onboarded(a, 1, 'a1') },
      { topic, key: a, value: { broken: true } },
      { topic, key: b, value: onboarded(b, 1, 'b1') },
      { topic, key: a, value: onboarded(a, 2, 'a2') },
      { topic, key: a, value: onboarded(a, 1, 'a1 again') },
    ]);
    await waitFor(() => settled.length >= 5, 'five settled', 20_000);
    const byKey = (k: string) => settled.filter((x) => x.key === k).map((x) => x.outcome);
    expect(byKey(a)).toEqual(['applied', 'parked', 'applied', 'duplicate']);
    expect(byKey(b)).toEqual(['applied']);
    expect(await row(a)).toEqual({ name: 'a2', applied: 2 });
    expect(await row(b)).toEqual({ name: 'b1', applied: 1 });
    expect(await parked(a)).toHaveLength(1);
  });
});

describe('runConsumer handleMany (real PostgreSQL)', () => {
  let ds: DataSource;
  let transport: InProcessTransport;
  let consumer: RunningConsumer | undefined;

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('consumer_many'));
  });
  afterAll(async () => {
    await ds?.destroy();
  });
  beforeEach(() => {
    transport = new InProcessTransport();
  });
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await transport.close();
  });

  it('gives each run of distinct keys to one call, without the duplicates, with the held revisions', async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const calls: [string, number, number | null][][] = [];
    const settled: ConsumeOutcome[] = [];
    consumer = await runConsumer({
      transport,
      topic,
      group: `g-${randomUUID()}`,
      dataSource: ds,
      logger,
      onSettled: (outcome) => settled.push(outcome),
      handleMany: async (events) => void calls.push(events.map((e) => [e.envelope.key, e.envelope.revision, e.heldRevision])),
    });
    await transport.publish([{ topic, key: a, value: onboarded(a, 2) }]);
    await waitFor(() => settled.length === 1, 'a2 settled');
    await transport.publish([
      { topic, key: a, value: onboarded(a, 1) }, // older than the held 2: not given
      { topic, key: b, value: onboarded(b, 1) },
      { topic, key: c, value: onboarded(c, 1) },
      { topic, key: a, value: onboarded(a, 3) }, // a again: ends the run
      { topic, key: b, value: onboarded(b, 2) },
    ]);
    await waitFor(() => settled.length === 6, 'six settled');
    expect(settled).toEqual(['applied', 'duplicate', 'applied', 'applied', 'applied', 'applied']);
    expect(calls).toEqual([
      [[a, 2, null]],
      [
        [b, 1, null],
        [c, 1, null],
      ],
      [
        [a, 3, 2],
        [b, 2, 1],
      ],
    ]);
  });

  it('a failing call is rolled back whole and retried one event per call: a ParkEventError parks only its message', async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const calls: number[] = [];
    const settled: { outcome: ConsumeOutcome; key: string }[] = [];
    consumer = await runConsumer({
      transport,
      topic,
      group: `g-${randomUUID()}`,
      dataSource: ds,
      logger,
      onSettled: (outcome, m) => settled.push({ outcome, key: m.key }),
      handleMany: async (events, { manager }) => {
        calls.push(events.length);
        for (const e of events) {
          const { name } = e.envelope.data as { name: string };
          await manager.query('INSERT INTO participants (id, name) VALUES ($1, $2)', [e.envelope.key, name]);
          if (name === 'refused') throw new ParkEventError('refused by the handler');
        }
      },
    });
    await transport.publish([
      { topic, key: a, value: onboarded(a, 1, 'fine') },
      { topic, key: b, value: onboarded(b, 1, 'refused') },
      { topic, key: c, value: onboarded(c, 1, 'fine too') },
    ]);
    await waitFor(() => settled.length === 3, 'three settled');
    expect(calls).toEqual([3, 1, 1, 1]);
    expect(settled).toEqual([
      { outcome: 'applied', key: a },
      { outcome: 'parked', key: b },
      { outcome: 'applied', key: c },
    ]);
    const names = (await ds.query('SELECT id, name FROM participants WHERE id = ANY($1) ORDER BY name', [[a, b, c]])) as { id: string }[];
    expect(names.map((r) => r.id)).toEqual([a, c]);
    expect(await ds.query('SELECT reason FROM parked_events WHERE key = $1', [b])).toEqual([{ reason: 'refused by the handler' }]);
  });

  it('refuses options with both handle and handleMany, or neither', async () => {
    const base = { transport, topic, group: 'g', dataSource: ds, logger };
    await expect(runConsumer({ ...base, handle: async () => undefined, handleMany: async () => undefined })).rejects.toThrow(
      /exactly one of handle and handleMany/,
    );
    await expect(runConsumer(base)).rejects.toThrow(/exactly one of handle and handleMany/);
  });
});

describe('the claim (CLAIM_SQL, real PostgreSQL)', () => {
  let ds: DataSource;

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('consumer_claim'));
  });
  afterAll(async () => {
    await ds?.destroy();
  });

  it('claims by index lookups: the cost does not grow with the keys already held, even before ANALYZE', async () => {
    // 20,000 keys held, and no statistics yet (autovacuum has not analyzed the table since it grew): the claim
    // used to walk every key of its (consumer, topic) there, thousands of buffer reads; by key it needs a few.
    const group = `g-${randomUUID()}`;
    await ds.query('ALTER TABLE consumer_state SET (autovacuum_enabled = false)');
    await ds.query(`INSERT INTO consumer_state (consumer, topic, key, revision) SELECT $1, $2, 'k' || g, 1 FROM generate_series(1, 20000) g`, [group, topic]);
    const keys = ['k7', 'k19999', newId(), newId()];
    const runner = ds.createQueryRunner();
    try {
      await runner.startTransaction();
      const [{ 'QUERY PLAN': plan }] = (await runner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${CLAIM_SQL}`, [group, topic, keys, [2, 2, 1, 1]])) as {
        'QUERY PLAN': { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[];
      }[];
      const buffers = plan[0].Plan['Shared Hit Blocks'] + plan[0].Plan['Shared Read Blocks'];
      expect(buffers).toBeGreaterThan(0);
      expect(buffers).toBeLessThan(200);
      // And it still claims: two held keys (revision 1 -> 2), two new ones.
      const rows = (await runner.query(CLAIM_SQL, [group, topic, keys, [3, 1, 1, 1]])) as { held: string | null; claimed: boolean }[];
      expect(rows).toEqual([
        { held: '2', claimed: true },
        { held: '2', claimed: false },
        { held: '1', claimed: false },
        { held: '1', claimed: false },
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
