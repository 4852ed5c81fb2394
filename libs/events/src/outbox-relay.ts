import { Client } from 'pg';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { metric } from './metrics';
import { OUTBOX_CHANNEL } from './outbox';
import { SpanStatusCode } from '@opentelemetry/api';
import { contextFromHeaders, headersFor, SpanKind, startSpan } from './tracing';
import { EventTransport, jsonMessage, OutgoingMessage } from './transport';
import { WakeLoop } from './wake-loop';

export interface OutboxRelayOptions {
  service: string;
  databaseUrl: string;
  transport: EventTransport;
  logger: Logger;
  registry?: Registry;
  batchSize?: number;
  /**
   * Least time between two publishes in a row (default DEFAULT_RELAY_LINGER_MS): while rows keep coming, the
   * relay waits this long after a publish before it reads again, so that each produce request carries what
   * accumulated meanwhile instead of a row or two (Kafka producers' `linger.ms`). A row committed after a quiet
   * spell is published at once; stop() ends a linger and publishes what it held back. 0: read again as soon as a
   * publish ends.
   */
  lingerMs?: number;
  /** Fallback poll when no NOTIFY arrives (covers a lost LISTEN connection). */
  pollIntervalMs?: number;
  maxBackoffMs?: number;
  /**
   * Fault injection for tests: runs after a batch was published and before it is marked. Throwing here (or
   * killing the process, as e2e's fault entry point does) is a crash between publish and mark.
   */
  afterPublish?: (messages: OutgoingMessage[]) => Promise<void> | void;
}

interface Row {
  id: string;
  topic: string;
  key: string;
  /** The stored envelope's JSON text (published as is), or null for a tombstone. */
  payload: string | null;
  created_at: Date;
  traceparent: string | null;
}

/** The relay's read: the next unpublished rows in id order, payload as text (published as stored, never parsed: jsonMessage). */
export const RELAY_READ_SQL =
  'SELECT id, topic, key, payload::text AS payload, created_at, traceparent FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1';

/**
 * Set on the relay's connection. RELAY_READ_SQL walks the partial index `outbox_unpublished`, where every published
 * row leaves a dead entry until the table is vacuumed. The plan PostgreSQL picks for a few hundred rows, a bitmap
 * scan, visits the heap page of every dead entry on every read and never marks them, so each read cost more the
 * longer autovacuum had not run: 2 to 13 ms with about 10,000 of them in `npm run bench -- platform`, and without
 * bound on a big table, whose autovacuum waits for 20 % of it to be dead. A plain index scan marks an entry dead the
 * first time it meets it so, and later reads skip it without touching the heap: 0.05 to 0.2 ms in the same run.
 */
export const RELAY_SESSION_SQL = 'SET enable_bitmapscan = off';

/**
 * The relay's default linger (OUTBOX_LINGER_MS). Without one, a relay that keeps up publishes a row or two per
 * produce request, one record batch per partition each; a consumer on the librdkafka mock peer gets one record
 * batch per partition per fetch, so at 1,000 registrations/s search fell seconds behind. 20 ms keeps about 20 rows
 * per request there and adds at most 20 ms to the publish (docs/events.md "Relay", "Linger").
 */
export const DEFAULT_RELAY_LINGER_MS = 20;

/**
 * Publishes outbox rows in id order and marks them published. One relay per database holds a session advisory
 * lock, so replicas never publish out of order. A crash between publish and mark re-publishes the batch: the
 * consumers are idempotent by revision. While the broker is away it retries with exponential backoff.
 */
export class OutboxRelay {
  private client?: Client;
  private listener?: Client;
  /** Poke, poll and back-off: the pass is `drain`, connecting (lock, LISTEN) is its preparation. */
  private readonly loop: WakeLoop;
  /** When the last publish that carried rows ended (ms since the epoch): the linger counts from it. */
  private lastPublishAt = 0;
  /** Cuts a linger short: stop() only (a poke must not, or every commit would end it). */
  private endLinger?: () => void;
  private readonly backlog?: Gauge;
  private readonly lag?: Histogram;
  private readonly published?: Counter;
  private readonly failures?: Counter;
  private readonly leader?: Gauge;
  private readonly oldest?: Gauge;
  /** The backlog as of the last count (the leader only: a standby relay does not count). */
  private lastBacklog?: { rows: number; oldestSeconds: number };

  constructor(private readonly opts: OutboxRelayOptions) {
    const registry = opts.registry;
    this.backlog = metric(registry, 'outbox_backlog', (registers) => new Gauge({ name: 'outbox_backlog', help: 'Outbox rows not yet published', registers }));
    this.lag = metric(
      registry,
      'outbox_publish_lag_seconds',
      (registers) =>
        new Histogram({
          name: 'outbox_publish_lag_seconds',
          help: 'Time from an outbox row being written to it being published',
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
          registers,
        }),
    );
    this.published = metric(
      registry,
      'outbox_published_total',
      (registers) => new Counter({ name: 'outbox_published_total', help: 'Outbox rows published', registers }),
    );
    this.failures = metric(
      registry,
      'outbox_publish_failures_total',
      (registers) => new Counter({ name: 'outbox_publish_failures_total', help: 'Failed publish attempts', registers }),
    );
    this.leader = metric(
      registry,
      'outbox_relay_leader',
      (registers) =>
        new Gauge({ name: 'outbox_relay_leader', help: '1 while this replica holds the relay lock and publishes the outbox, 0 while it stands by', registers }),
    );
    this.oldest = metric(
      registry,
      'outbox_backlog_oldest_seconds',
      (registers) =>
        new Gauge({
          name: 'outbox_backlog_oldest_seconds',
          help: 'Age of the oldest outbox row not yet published (0 when none), as of the last count',
          registers,
        }),
    );
    this.leader?.set(0);
    this.loop = new WakeLoop({
      prepare: () => this.connect(),
      pass: () => this.drain(),
      pollMs: opts.pollIntervalMs ?? 2000,
      maxBackoffMs: opts.maxBackoffMs ?? 10_000,
      onError: async (err, retryInMs) => {
        this.failures?.inc();
        this.opts.logger.warn({ err: err instanceof Error ? err.message : String(err), retryInMs }, 'outbox relay: publish failed, retrying');
        if (this.client && !(await this.alive())) await this.disconnect();
        if (this.client) await this.updateBacklog().catch(() => undefined);
      },
    });
  }

  /**
   * What readiness shows of this relay: whether it leads (holds the relay lock), and, when it does, the backlog as
   * of its last count (every pass, and every retry while the broker is away).
   */
  status(): { leader: boolean; backlog?: number; oldest_seconds?: number } {
    const leader = this.client !== undefined;
    if (!leader || !this.lastBacklog) return { leader };
    return { leader, backlog: this.lastBacklog.rows, oldest_seconds: this.lastBacklog.oldestSeconds };
  }

  async start(): Promise<void> {
    this.loop.start();
  }

  /** Ask for an immediate pass (also triggered by NOTIFY). */
  poke(): void {
    this.loop.poke();
  }

  async stop(): Promise<void> {
    const ended = this.loop.stop();
    this.endLinger?.();
    await ended;
    await this.disconnect();
  }

  /** Waits until `lingerMs` has passed since the last publish (at once after a quiet spell), or until stop(). */
  private async linger(): Promise<void> {
    const wait = this.lastPublishAt + (this.opts.lingerMs ?? DEFAULT_RELAY_LINGER_MS) - Date.now();
    if (wait <= 0 || !this.loop.running) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      timer.unref();
      this.endLinger = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.endLinger = undefined;
  }

  private async connect(): Promise<void> {
    if (!this.client) {
      const client = new Client({ connectionString: this.opts.databaseUrl, application_name: `dtp-${this.opts.service}-relay` });
      client.on('error', () => undefined);
      await client.connect();
      await client.query(RELAY_SESSION_SQL);
      // Only one relay per database publishes; the others wait for the lock.
      for (;;) {
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [`outbox:${this.opts.service}`]);
        if (rows[0].ok) {
          this.leader?.set(1);
          this.opts.logger.info({ service: this.opts.service }, 'outbox relay: holding the relay lock, publishing');
          break;
        }
        if (!this.loop.running) {
          await client.end();
          throw new Error('stopped');
        }
        await this.loop.pause(1000);
      }
      this.client = client;
    }
    if (!this.listener) {
      const listener = new Client({ connectionString: this.opts.databaseUrl, application_name: `dtp-${this.opts.service}-listen` });
      const lost = () => {
        if (this.listener === listener) this.listener = undefined;
        void listener.end().catch(() => undefined);
      };
      listener.on('error', lost);
      listener.on('end', lost);
      listener.on('notification', () => this.poke());
      await listener.connect();
      await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = listener;
      // Rows committed while nobody listened: look now.
      this.loop.poke();
    }
  }

  private async disconnect(): Promise<void> {
    const c = this.client;
    const l = this.listener;
    this.client = undefined;
    this.listener = undefined;
    this.leader?.set(0);
    await Promise.all([c?.end().catch(() => undefined), l?.end().catch(() => undefined)]);
  }

  /**
   * One pass: publish batches while there are rows (each after the linger), then count the backlog. A stop cuts
   * the linger short and one more batch publishes what accumulated meanwhile (a graceful stop flushes, as it did
   * before the linger held rows back), also when the stop came during a publish, before the linger began.
   */
  private async drain(): Promise<void> {
    for (;;) {
      await this.linger();
      const last = !this.loop.running;
      const n = await this.publishBatch();
      if (n > 0) this.lastPublishAt = Date.now();
      if (n === 0 || last) break;
    }
    await this.updateBacklog();
  }

  private async alive(): Promise<boolean> {
    try {
      await this.client!.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  private async publishBatch(): Promise<number> {
    const client = this.client!;
    const { rows } = await client.query<Row>(RELAY_READ_SQL, [this.opts.batchSize ?? 500]);
    if (rows.length === 0) return 0;
    // A row written under a trace is published in a `publish <topic>` span of that trace, whose context the
    // message carries in its headers (rows without one: no span, no headers).
    const spans = rows.map((r) =>
      r.traceparent
        ? startSpan(`publish ${r.topic}`, SpanKind.PRODUCER, contextFromHeaders({ traceparent: r.traceparent }), {
            'messaging.destination.name': r.topic,
            'messaging.operation.type': 'publish',
          })
        : null,
    );
    const messages: OutgoingMessage[] = rows.map((r, i) => {
      const span = spans[i];
      return jsonMessage(r.topic, r.key, r.payload, span ? headersFor(span) : undefined);
    });
    try {
      await this.opts.transport.publish(messages);
    } catch (err) {
      for (const span of spans) span?.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      for (const span of spans) span?.end();
    }
    await this.opts.afterPublish?.(messages);
    await client.query('UPDATE outbox SET published_at = clock_timestamp() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
    const now = Date.now();
    for (const r of rows) this.lag?.observe(Math.max(0, now - r.created_at.getTime()) / 1000);
    this.published?.inc(rows.length);
    return rows.length;
  }

  private async updateBacklog(): Promise<void> {
    const { rows } = await this.client!.query<{ n: string; age: string | null }>(
      'SELECT count(*) AS n, extract(epoch FROM clock_timestamp() - min(created_at)) AS age FROM outbox WHERE published_at IS NULL',
    );
    const n = Number(rows[0].n);
    const age = rows[0].age === null ? 0 : Math.max(0, Math.round(Number(rows[0].age) * 10) / 10);
    this.lastBacklog = { rows: n, oldestSeconds: age };
    this.backlog?.set(n);
    this.oldest?.set(age);
  }
}
