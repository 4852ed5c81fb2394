import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { Topics } from '@dtp/domain';
import { kafkaTestBrokers, noSnapshotHeld } from '@dtp/testing';
import {
  EventTransport,
  IncomingMessage,
  InProcessTransport,
  KafkaTransport,
  OutboxRelay,
  OutgoingMessage,
  RELAY_READ_SQL,
  RELAY_SESSION_SQL,
  runConsumer,
  writeOutbox,
} from '../src';
import { eventsDatabase, logger, newId, onboarded, waitFor } from './helpers';

const topic = Topics.AUTH_PARTICIPANTS;

/** A transport whose broker can be taken away. */
class FlakyTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  down = false;
  attempts = 0;
  constructor(readonly inner: EventTransport) {}
  async publish(messages: OutgoingMessage[]) {
    this.attempts += 1;
    if (this.down) throw new Error('broker unreachable');
    await this.inner.publish(messages);
  }
  subscribe: EventTransport['subscribe'] = (o) => this.inner.subscribe(o);
  check = () => this.inner.check();
  close = () => this.inner.close();
}

describe('OutboxRelay (real PostgreSQL)', () => {
  let ds: DataSource;
  let url: string;
  const relays: OutboxRelay[] = [];

  beforeEach(async () => {
    ({ ds, url } = await eventsDatabase('relay'));
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop();
    await ds.destroy();
  });

  const relay = async (transport: EventTransport, extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) => {
    const r = new OutboxRelay({ service: 'test', databaseUrl: url, transport, logger, pollIntervalMs: 60_000, maxBackoffMs: 200, ...extra });
    relays.push(r);
    await r.start();
    return r;
  };
  /** Writes events of `keys`, `perKey` revisions each, interleaved, one transaction per event. */
  const produce = async (keys: string[], from: number, to: number) => {
    for (let rev = from; rev <= to; rev += 1) {
      for (const key of keys) {
        await ds.transaction((m) => writeOutbox(m, [{ topic, key, eventType: 'participant.onboarded', revision: rev, payload: onboarded(key, rev) }]));
      }
    }
  };
  const collect = async (transport: EventTransport) => {
    const got: IncomingMessage[] = [];
    await transport.subscribe({ topic, group: `g-${randomUUID()}`, handler: async (m) => void got.push(m) });
    return got;
  };
  const revisions = (got: IncomingMessage[], key: string) => got.filter((m) => m.key === key).map((m) => (m.value as { revision: number }).revision);
  const unpublished = async () => Number(((await ds.query('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL')) as { n: string }[])[0].n);
  const metric = async (registry: Registry, name: string, field: 'value' | 'count' = 'value') => {
    const values = (await registry.getSingleMetric(name)!.get()).values;
    if (field === 'count') return values.find((v) => (v as { metricName?: string }).metricName === `${name}_count`)?.value ?? 0;
    return values.reduce((s, v) => s + v.value, 0);
  };

  it('publishes rows in order, marks them, and moves the backlog and lag metrics', async () => {
    const transport = new InProcessTransport();
    const got = await collect(transport);
    const keys = [newId(), newId(), newId()];
    await produce(keys, 1, 20); // written before the relay starts: backlog 60
    const registry = new Registry();
    await relay(transport, { registry, batchSize: 7 });
    await waitFor(() => got.length === 60, '60 messages');
    for (const key of keys) expect(revisions(got, key)).toEqual([...Array(20).keys()].map((i) => i + 1));
    await waitFor(async () => (await unpublished()) === 0, 'all marked');
    await waitFor(async () => (await metric(registry, 'outbox_published_total')) === 60, 'published metric');
    expect(await metric(registry, 'outbox_backlog')).toBe(0);
    expect(await metric(registry, 'outbox_publish_lag_seconds', 'count')).toBe(60);
    await transport.close();
  });

  it('wakes on the commit (LISTEN/NOTIFY), not on its slow poll', async () => {
    const transport = new InProcessTransport();
    const got = await collect(transport);
    await relay(transport, { pollIntervalMs: 60_000 });
    await new Promise((r) => setTimeout(r, 300)); // idle: waiting on its 60 s poll
    const key = newId();
    const committed = Date.now();
    await produce([key], 1, 1);
    await waitFor(() => got.length === 1, 'prompt delivery', 5_000);
    expect(Date.now() - committed).toBeLessThan(5_000);
    await transport.close();
  });

  it('lingers between publishes while rows keep coming: what was committed meanwhile goes in one publish', async () => {
    const inner = new InProcessTransport();
    const got = await collect(inner);
    const publishes: { size: number; at: number }[] = [];
    const recording = new FlakyTransport(inner);
    recording.publish = async (messages) => {
      publishes.push({ size: messages.length, at: Date.now() });
      await inner.publish(messages);
    };
    await relay(recording, { lingerMs: 2000 });
    const [first, ...rest] = [newId(), newId(), newId(), newId(), newId(), newId()];
    await produce([first], 1, 1);
    await waitFor(() => got.length === 1, 'the first row, published at once after a quiet spell');
    // Five commits (five NOTIFYs, five pokes) during the linger: one publish of five when it ends.
    await produce(rest, 1, 1);
    await waitFor(() => got.length === 6, 'all six', 10_000);
    expect(publishes.map((p) => p.size)).toEqual([1, 5]);
    expect(publishes[1].at - publishes[0].at).toBeGreaterThanOrEqual(1990);
    await inner.close();
  });

  it('stop() ends a linger at once and publishes what it held back (a graceful stop flushes)', async () => {
    const transport = new InProcessTransport();
    const got = await collect(transport);
    const r = await relay(transport, { lingerMs: 600_000 });
    const [a, b] = [newId(), newId()];
    await produce([a], 1, 1);
    await waitFor(() => got.length === 1, 'the first row');
    await produce([b], 1, 1); // held back by a 10-minute linger: stop() must not wait it out
    await r.stop();
    await waitFor(() => got.length === 2, 'the held-back row, published by the stop');
    expect(got.map((m) => m.key)).toEqual([a, b]);
    expect(await unpublished()).toBe(0);
    await transport.close();
  });

  it('stop() during a publish still publishes what was committed meanwhile (the window before the linger starts)', async () => {
    const inner = new InProcessTransport();
    const got = await collect(inner);
    const held = new FlakyTransport(inner);
    let release!: () => void;
    let inFlight!: () => void;
    const publishing = new Promise<void>((resolve) => (inFlight = resolve));
    held.publish = async (messages) => {
      if (got.length === 0) {
        inFlight();
        await new Promise<void>((resolve) => (release = resolve));
      }
      await inner.publish(messages);
    };
    const r = await relay(held, { lingerMs: 600_000 });
    const [a, b] = [newId(), newId()];
    await produce([a], 1, 1);
    await publishing; // a's publish is in flight: the relay has not begun to linger
    await produce([b], 1, 1);
    const stopped = r.stop();
    release();
    await stopped;
    expect(got.map((m) => m.key)).toEqual([a, b]);
    expect(await unpublished()).toBe(0);
    await inner.close();
  });

  it('keeps rows while the broker is away, retries with backoff, then delivers all in order, none lost', async () => {
    const inner = new InProcessTransport();
    const flaky = new FlakyTransport(inner);
    const got = await collect(inner);
    const registry = new Registry();
    flaky.down = true;
    await relay(flaky, { registry });
    const keys = [newId(), newId()];
    await produce(keys, 1, 5);
    await waitFor(() => flaky.attempts >= 4, 'several failed attempts');
    expect(got).toHaveLength(0);
    expect(await unpublished()).toBe(10);
    expect(await metric(registry, 'outbox_publish_failures_total')).toBeGreaterThanOrEqual(3);
    await waitFor(async () => (await metric(registry, 'outbox_backlog')) === 10, 'backlog metric');
    await produce(keys, 6, 8); // registrations continue
    flaky.down = false;
    await waitFor(() => got.length === 16, 'all 16 after recovery');
    for (const key of keys) expect(revisions(got, key)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    await waitFor(async () => (await unpublished()) === 0, 'all marked');
    await inner.close();
  });

  it('a crash between publish and mark re-publishes the batch; an idempotent consumer applies each event once', async () => {
    const transport = new InProcessTransport();
    const got = await collect(transport);
    const applied: string[] = [];
    const consumer = await runConsumer({
      transport,
      topic,
      group: 'participants',
      dataSource: ds,
      logger,
      handle: async (event) => void applied.push(`${event.key}:${event.revision}`),
    });
    const key = newId();
    await produce([key], 1, 3);
    let crashes = 0;
    const crashing = await relay(transport, {
      afterPublish: () => {
        crashes += 1;
        throw new Error('crash after publish');
      },
    });
    await waitFor(() => got.length >= 3 && crashes >= 1, 'published once');
    await crashing.stop();
    expect(await unpublished()).toBe(3); // never marked
    await relay(transport); // "restart"
    await waitFor(async () => (await unpublished()) === 0, 'marked after restart');
    await waitFor(() => consumer.counts.duplicate >= 3, 'duplicates absorbed');
    expect(revisions(got, key).slice(-3)).toEqual([1, 2, 3]);
    expect(got.length).toBeGreaterThanOrEqual(6);
    expect(applied).toEqual([`${key}:1`, `${key}:2`, `${key}:3`]);
    await consumer.close();
    await transport.close();
  });

  it('a mark that fails fails the pass: the batch is published again, then marked, and later rows follow it', async () => {
    // the first UPDATE of outbox is refused (a sequence's nextval is not rolled back with the error)
    await ds.query(`CREATE SEQUENCE mark_attempts`);
    await ds.query(`CREATE FUNCTION refuse_first_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('mark_attempts') = 1 THEN RAISE EXCEPTION 'mark refused'; END IF; RETURN NEW; END $$`);
    await ds.query(`CREATE TRIGGER refuse_first_mark BEFORE UPDATE ON outbox FOR EACH STATEMENT EXECUTE FUNCTION refuse_first_mark()`);
    const transport = new InProcessTransport();
    const got = await collect(transport);
    const registry = new Registry();
    const key = newId();
    await produce([key], 1, 3);
    await relay(transport, { registry });
    await waitFor(async () => (await unpublished()) === 0, 'marked after the refused mark');
    expect(await metric(registry, 'outbox_publish_failures_total')).toBeGreaterThanOrEqual(1);
    expect(revisions(got, key)).toEqual([1, 2, 3, 1, 2, 3]);
    await produce([key], 4, 5);
    await waitFor(() => got.length === 8, 'the later rows');
    expect(revisions(got, key).slice(6)).toEqual([4, 5]);
    await waitFor(async () => (await unpublished()) === 0, 'the later rows marked');
    await transport.close();
  });

  it('two relays on one database: one publishes (advisory lock), order kept, the other takes over on stop', async () => {
    const transport = new InProcessTransport();
    const got = await collect(transport);
    const first = await relay(transport);
    await new Promise((r) => setTimeout(r, 200));
    const second = await relay(transport);
    const key = newId();
    await produce([key], 1, 10);
    await waitFor(() => got.length === 10, 'ten');
    await first.stop();
    await produce([key], 11, 15);
    await waitFor(() => got.length === 15, 'fifteen via the second relay', 10_000);
    expect(revisions(got, key)).toEqual([...Array(15).keys()].map((i) => i + 1));
    await second.stop();
    await transport.close();
  });

  it('publishes through Kafka in per-key order (relay -> Kafka peer -> consumer)', async () => {
    const kafka = new KafkaTransport({ clientId: 'relay-test', brokers: kafkaTestBrokers(), logger, maxWaitTimeInMs: 50, sessionTimeoutMs: 6000 });
    try {
      const keys = [newId(), newId(), newId(), newId()];
      const got: IncomingMessage[] = [];
      const sub = await kafka.subscribe({ topic, group: `g-${randomUUID()}`, handler: async (m) => void (keys.includes(m.key) && got.push(m)) });
      await relay(kafka);
      await produce(keys, 1, 10);
      await waitFor(() => got.length === 40, 'forty via kafka', 30_000);
      for (const key of keys) expect(revisions(got, key)).toEqual([...Array(10).keys()].map((i) => i + 1));
      await sub.close();
    } finally {
      for (const r of relays.splice(0)) await r.stop();
      await kafka.close();
    }
  });
});

describe("the relay's read (RELAY_READ_SQL on a connection with RELAY_SESSION_SQL)", () => {
  let ds: DataSource;
  let url: string;

  beforeAll(async () => {
    ({ ds, url } = await eventsDatabase('relayread'));
  });
  afterAll(async () => {
    await ds.destroy();
  });

  type Plan = { 'Node Type': string; 'Index Name'?: string; 'Shared Hit Blocks': number; 'Shared Read Blocks': number; Plans?: Plan[] };
  const nodes = (p: Plan): Plan[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

  it('walks the unpublished rows by index and, once it has met the dead entries published rows leave, no longer reads their pages', async () => {
    // 3,000 published rows, never vacuumed (each left a dead entry in outbox_unpublished), then 10 waiting ones; no
    // statistics yet (no ANALYZE), as on a busy outbox between autovacuum runs: the default plan is a bitmap scan.
    const keys = Array.from({ length: 3010 }, () => newId());
    for (let i = 0; i < keys.length; i += 500) {
      await writeOutbox(
        ds.manager,
        keys.slice(i, i + 500).map((key) => ({ topic, key, eventType: 'participant.onboarded', revision: 1, payload: onboarded(key, 1) })),
      );
    }
    await ds.query(`UPDATE outbox SET published_at = clock_timestamp() WHERE id < (SELECT max(id) - 9 FROM outbox)`);
    // the first read marks the published rows' index entries dead once no other session can see those rows
    await noSnapshotHeld(url);

    const relayConnection = new Client({ connectionString: url });
    await relayConnection.connect();
    try {
      await relayConnection.query(RELAY_SESSION_SQL);
      const read = async () => {
        const { rows } = await relayConnection.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${RELAY_READ_SQL}`, [500]);
        return nodes(rows[0]['QUERY PLAN'][0].Plan);
      };
      const first = await read();
      expect(first.map((n) => n['Node Type'])).not.toContain('Bitmap Heap Scan');
      expect(first.find((n) => n['Node Type'] === 'Index Scan')?.['Index Name']).toBe('outbox_unpublished');

      const blocks = (plan: Plan[]) => plan[0]['Shared Hit Blocks'] + plan[0]['Shared Read Blocks'];
      // The first read has to look at the dead rows' pages (about 200) to learn they are dead; the next one touches
      // the index and the ten waiting rows' pages only (about 10). A bitmap scan reads all of them every time.
      expect(blocks(first)).toBeGreaterThan(100);
      expect(blocks(await read())).toBeLessThan(40);
      const { rows } = await relayConnection.query<{ id: string }>(RELAY_READ_SQL, [500]);
      expect(rows).toHaveLength(10);
    } finally {
      await relayConnection.end();
    }
  });
});
