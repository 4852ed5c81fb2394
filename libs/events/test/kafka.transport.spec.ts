import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { kafkaTestBrokers } from '@dtp/testing';
import { IncomingMessage, jsonMessage, kafkajsRequestQueue, KafkaTransport } from '../src';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

async function waitFor(cond: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('KafkaTransport against the Kafka wire-protocol peer (kcat mock cluster)', () => {
  let transport: KafkaTransport;

  beforeAll(async () => {
    transport = new KafkaTransport({ clientId: 'events-test', brokers: kafkaTestBrokers(), logger, maxWaitTimeInMs: 50, sessionTimeoutMs: 6000 });
    await transport.connect();
  });

  afterAll(async () => {
    await transport?.close();
  });

  it('creates topics without the admin API (auto-creation) and reports the broker reachable', async () => {
    const topic = `t-ensure-${randomUUID()}`;
    await expect(
      transport.ensureTopics([
        { topic, compacted: true },
        { topic: `${topic}-log`, keepForever: true },
      ]),
    ).resolves.toBeUndefined();
    await expect(transport.check()).resolves.toBeUndefined();
    await transport.publish([{ topic, key: 'k', value: { hello: 1 } }]);
  });

  it('keeps per-key order across partitions, keys messages by aggregate id, delivers tombstones', async () => {
    const topic = `t-order-${randomUUID()}`;
    const got: IncomingMessage[] = [];
    const sub = await transport.subscribe({ topic, group: `g-${randomUUID()}`, fromBeginning: true, handler: async (m) => void got.push(m) });
    const keys = Array.from({ length: 8 }, (_, i) => `key-${i}`);
    for (let rev = 1; rev <= 25; rev += 1) {
      await transport.publish(keys.map((key) => ({ topic, key, value: { key, revision: rev } })));
    }
    await transport.publish([{ topic, key: 'key-0', value: null }]);
    await waitFor(() => got.length >= 8 * 25 + 1, 30_000, 'all messages');
    await sub.close();
    for (const key of keys) {
      const revs = got.filter((m) => m.key === key && m.value !== null).map((m) => (m.value as { revision: number }).revision);
      expect(revs).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      // All messages of one key sit in one partition.
      expect(new Set(got.filter((m) => m.key === key).map((m) => m.partition)).size).toBe(1);
    }
    expect(new Set(got.map((m) => m.partition)).size).toBeGreaterThan(1);
    const last = got.filter((m) => m.key === 'key-0').pop()!;
    expect(last.value).toBeNull();
  });

  it("sends a jsonMessage's text byte for byte without decoding it; a null text is a tombstone", async () => {
    const topic = `t-json-${randomUUID()}`;
    const got: IncomingMessage[] = [];
    const sub = await transport.subscribe({ topic, group: `g-${randomUUID()}`, fromBeginning: true, handler: async (m) => void got.push(m) });
    const text = '{"z": 1,  "a":[true,null]}';
    const message = jsonMessage(topic, 'k', text, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    const parse = jest.spyOn(JSON, 'parse');
    try {
      await transport.publish([message, jsonMessage(topic, 'k', null)]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    await waitFor(() => got.length === 2, 20_000, 'both messages');
    await sub.close();
    expect(got[0].raw?.toString('utf8')).toBe(text);
    expect(got[0].value).toEqual({ z: 1, a: [true, null] });
    expect(got[0].headers?.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(got[1].value).toBeNull();
  });

  it('delivers a value that is not JSON as text (so the consumer can park it) and retries a failing handler in place', async () => {
    const topic = `t-retry-${randomUUID()}`;
    const seen: string[] = [];
    let failures = 0;
    const sub = await transport.subscribe({
      topic,
      group: `g-${randomUUID()}`,
      handler: async (m) => {
        if (m.key === 'b' && failures < 2) {
          failures += 1;
          throw new Error('temporary');
        }
        seen.push(`${m.key}:${typeof m.value === 'string' ? m.value : JSON.stringify(m.value)}`);
      },
    });
    // Same key: 'b' twice keeps its order after the failures.
    await transport.publish([
      { topic, key: 'b', value: 1 },
      { topic, key: 'b', value: 2 },
    ]);
    await waitFor(() => seen.length >= 2, 20_000, 'retried messages');
    expect(failures).toBe(2);
    expect(seen).toEqual(['b:1', 'b:2']);
    await sub.close();
  });

  it('a new consumer group reads from the beginning; the same group resumes after its committed offset', async () => {
    const topic = `t-groups-${randomUUID()}`;
    await transport.publish(Array.from({ length: 10 }, (_, i) => ({ topic, key: `k${i % 3}`, value: { i } })));
    const group = `g-${randomUUID()}`;
    const first: number[] = [];
    let sub = await transport.subscribe({ topic, group, handler: async (m) => void first.push((m.value as { i: number }).i) });
    await waitFor(() => first.length >= 10, 20_000, 'first read');
    await sub.close(); // commits offsets on the way out
    await transport.publish([{ topic, key: 'k1', value: { i: 10 } }]);
    const second: number[] = [];
    sub = await transport.subscribe({ topic, group, handler: async (m) => void second.push((m.value as { i: number }).i) });
    await waitFor(() => second.includes(10), 20_000, 'resumed read');
    await new Promise((r) => setTimeout(r, 300));
    await sub.close();
    expect(first.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(second).toEqual([10]);
  });

  it('idles without a timer loop: its broker connections check their request queues only when a response comes', async () => {
    const topic = `t-idle-${randomUUID()}`;
    const got: IncomingMessage[] = [];
    const sub = await transport.subscribe({ topic, group: `g-${randomUUID()}`, fromBeginning: true, handler: async (m) => void got.push(m) });
    await transport.publish([{ topic, key: 'k', value: { n: 1 } }]);
    await waitFor(() => got.length === 1, 20_000, 'the message');
    const checks = jest.spyOn(kafkajsRequestQueue().prototype, 'checkPendingRequests');
    try {
      await new Promise((r) => setTimeout(r, 1000));
      // A producer and a consumer polling every 50 ms: a few dozen responses a second. kafkajs 2.2.4's own
      // scheduler re-ran the check on a 1 ms timer per connection: thousands a second.
      expect(checks.mock.calls.length).toBeGreaterThan(0);
      expect(checks.mock.calls.length).toBeLessThan(200);
    } finally {
      checks.mockRestore();
      await sub.close();
    }
  });

  it("fetchWaitMs: an idle consumer of a rare topic fetches at that wait instead of the transport's", async () => {
    // A transport that fetches every 20 ms; the librdkafka mock answers an empty fetch only when the wait has passed,
    // so an idle consumer's fetches are counted by the responses its connections take (checkPendingRequests).
    const quick = new KafkaTransport({ clientId: 'events-test-wait', brokers: kafkaTestBrokers(), logger, maxWaitTimeInMs: 20, sessionTimeoutMs: 6000 });
    await quick.connect();
    const responsesWhileIdle = async (fetchWaitMs: number | undefined): Promise<number> => {
      const topic = `t-wait-${randomUUID()}`;
      await quick.publish([{ topic, key: 'k', value: { n: 1 } }]);
      const got: IncomingMessage[] = [];
      const sub = await quick.subscribe({ topic, group: `g-${randomUUID()}`, fromBeginning: true, fetchWaitMs, handler: async (m) => void got.push(m) });
      try {
        // Data already there is answered at once, whatever the wait.
        await waitFor(() => got.length === 1, 20_000, 'the message');
        await new Promise((r) => setTimeout(r, 300));
        const checks = jest.spyOn(kafkajsRequestQueue().prototype, 'checkPendingRequests');
        try {
          await new Promise((r) => setTimeout(r, 2000));
          return checks.mock.calls.length;
        } finally {
          checks.mockRestore();
        }
      } finally {
        await sub.close();
      }
    };
    try {
      const atTransportWait = await responsesWhileIdle(undefined);
      const atRouteWait = await responsesWhileIdle(1000);
      // 20 ms: up to 100 empty fetches in 2 s. 1,000 ms: 2 fetches and about 2 heartbeats.
      expect(atTransportWait).toBeGreaterThan(30);
      expect(atRouteWait).toBeLessThan(12);
    } finally {
      await quick.close();
    }
  });

  describe('subscribeAll: the topics of one group in one consumer', () => {
    const admin = () => new Kafka({ clientId: 'events-test-admin', brokers: kafkaTestBrokers(), logLevel: logLevel.NOTHING }).admin();

    it('one member of the plain group consumes every topic, each into its own handler (batched or not)', async () => {
      const [a, b] = [`t-all-a-${randomUUID()}`, `t-all-b-${randomUUID()}`];
      const group = `g-${randomUUID()}`;
      const gotA: string[] = [];
      const gotB: string[][] = [];
      const consumers = jest.spyOn(Kafka.prototype, 'consumer');
      const subs = await transport.subscribeAll([
        { topic: a, group, handler: async (m) => void gotA.push(`${m.topic}:${m.key}`) },
        { topic: b, group, handler: async () => undefined, batchHandler: async (ms) => void gotB.push(ms.map((m) => `${m.topic}:${m.key}`)) },
      ]);
      try {
        await transport.publish([
          ...Array.from({ length: 6 }, (_, i) => ({ topic: a, key: `a${i}`, value: { i } })),
          ...Array.from({ length: 6 }, (_, i) => ({ topic: b, key: `b${i}`, value: { i } })),
        ]);
        await waitFor(() => gotA.length === 6 && gotB.flat().length === 6, 20_000, 'both topics');
        expect(gotA.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `${a}:a${i}`));
        expect(gotB.flat().sort()).toEqual(Array.from({ length: 6 }, (_, i) => `${b}:b${i}`));
        expect(consumers).toHaveBeenCalledTimes(1);
        // Both topics' positions are committed in the plain group (kafkajs commits every second).
        const kafka = admin();
        await kafka.connect();
        try {
          const committed = async (groupId: string) =>
            (await kafka.fetchOffsets({ groupId, topics: [a, b] })).map((t) => t.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0));
          for (const until = Date.now() + 10_000; (await committed(group)).join() !== '6,6' && Date.now() < until;)
            await new Promise((r) => setTimeout(r, 200));
          expect(await committed(group)).toEqual([6, 6]);
          expect(await committed(`${group}.${a}`)).toEqual([0, 0]);
        } finally {
          await kafka.disconnect();
        }
        expect(subs.map((s) => s.assignedPartitions?.().length)).toEqual([4, 4]);
      } finally {
        consumers.mockRestore();
        await Promise.all(subs.map((s) => s.close()));
      }
    });

    it('takes over the positions of the per-topic groups earlier versions used, so an upgrade reads only what is new', async () => {
      const [a, b] = [`t-take-a-${randomUUID()}`, `t-take-b-${randomUUID()}`];
      const group = `g-${randomUUID()}`;
      await transport.publish([
        ...Array.from({ length: 5 }, (_, i) => ({ topic: a, key: `k${i}`, value: { i } })),
        ...Array.from({ length: 5 }, (_, i) => ({ topic: b, key: `k${i}`, value: { i } })),
      ]);
      // Earlier versions: one group per topic (`<group>.<topic>`).
      const before: string[] = [];
      const old = await Promise.all(
        [a, b].map((topic) => transport.subscribe({ topic, group, handler: async (m) => void before.push(`${m.topic}:${(m.value as { i: number }).i}`) })),
      );
      await waitFor(() => before.length === 10, 20_000, 'the old groups read everything');
      await Promise.all(old.map((s) => s.close())); // commits on the way out
      await transport.publish([
        { topic: a, key: 'k1', value: { i: 5 } },
        { topic: b, key: 'k2', value: { i: 5 } },
      ]);
      const after: string[] = [];
      const subs = await transport.subscribeAll(
        [a, b].map((topic) => ({ topic, group, handler: async (m: IncomingMessage) => void after.push(`${m.topic}:${(m.value as { i: number }).i}`) })),
      );
      try {
        await waitFor(() => after.length >= 2, 20_000, 'the new messages');
        await new Promise((r) => setTimeout(r, 500));
        expect(after.sort()).toEqual([`${a}:5`, `${b}:5`]);
        // Readiness asks the group that consumes the topic now.
        const offsets = await transport.groupOffsets(group, a);
        expect(offsets.reduce((n, p) => n + p.end, 0)).toBe(6);
      } finally {
        await Promise.all(subs.map((s) => s.close()));
      }
    });

    it('closing one of the topics leaves the others consuming', async () => {
      const [a, b] = [`t-close-a-${randomUUID()}`, `t-close-b-${randomUUID()}`];
      const group = `g-${randomUUID()}`;
      const got: string[] = [];
      const [subA, subB] = await transport.subscribeAll(
        [a, b].map((topic) => ({ topic, group, handler: async (m: IncomingMessage) => void got.push(m.topic) })),
      );
      try {
        await subA.close();
        await transport.publish([
          { topic: a, key: 'k', value: 1 },
          { topic: b, key: 'k', value: 1 },
        ]);
        await waitFor(() => got.includes(b), 20_000, 'the open topic');
        await new Promise((r) => setTimeout(r, 500));
        expect(got).toEqual([b]);
      } finally {
        await subB.close();
      }
    });

    it('refuses topics of two groups, a topic given twice, and a fetch wait of its own', async () => {
      const handler = async () => undefined;
      await expect(
        transport.subscribeAll([
          { topic: 'x', group: 'g1', handler },
          { topic: 'y', group: 'g2', handler },
        ]),
      ).rejects.toThrow(/one group/);
      await expect(
        transport.subscribeAll([
          { topic: 'x', group: 'g1', handler },
          { topic: 'x', group: 'g1', handler },
        ]),
      ).rejects.toThrow(/twice/);
      // A fetch wait of its own needs a consumer of its own.
      await expect(transport.subscribeAll([{ topic: 'x', group: 'g1', handler, fetchWaitMs: 500 }])).rejects.toThrow(/consumer of its own/);
    });
  });
});
