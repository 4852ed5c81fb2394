import type { Logger } from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { EnvelopeValidation, KnownEventEnvelope, validateEnvelope } from '@dtp/domain';
import { EventTransport, IncomingMessage, Subscription } from './transport';

/**
 * Throw from a handler when the event can never be applied (a rule refuses it, a reference is unknown for
 * good, ...): the transaction rolls back, the message goes to `parked_events` with `reason`, the partition moves on.
 */
export class ParkEventError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ParkEventError';
  }
}

/**
 * Throw from a handler when the failure is temporary (another service or store is away): the message is retried
 * with backoff, for as long as it takes, and never parked.
 */
export class RetryEventError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryEventError';
  }
}

export interface ConsumeContext {
  /** The transaction's manager: every write of the handler goes through it (same transaction as the progress). */
  manager: EntityManager;
  message: IncomingMessage;
  /** The revision this database held for the key before this event (null: never seen). */
  heldRevision: number | null;
}

export interface RunConsumerOptions {
  transport: EventTransport;
  topic: string;
  /** Kafka consumer group (one per consuming service: ConsumerGroups in @dtp/domain). */
  group: string;
  /**
   * Name under which progress is kept in `consumer_state` (default: `group`). A rebuild that replays the topic
   * under a fresh Kafka group keeps the same state name, so both see the same read model's revisions.
   */
  stateName?: string;
  dataSource: DataSource;
  logger: Logger;
  /** The service's Prometheus registry (ctx.metrics.registry): applied / duplicate / parked counters. */
  registry?: Registry;
  /** Start from the beginning of the topic when the group has no committed position (default true). */
  fromBeginning?: boolean;
  /**
   * Applies one validated event inside a transaction. Runs only when `envelope.revision` is newer than what this
   * database holds for `envelope.key`; the new revision is recorded in the same transaction. Throw ParkEventError
   * to park, RetryEventError to retry for as long as it takes; any other error is retried `maxAttempts` times and
   * then parked.
   */
  handle: (envelope: KnownEventEnvelope, ctx: ConsumeContext) => Promise<void>;
  /** Applies a tombstone (null value) for `key`, in a transaction. Without it tombstones are skipped. */
  onTombstone?: (key: string, ctx: ConsumeContext) => Promise<void>;
  /** Defaults to @dtp/domain's validateEnvelope (envelope + payload contract of the topic). */
  validate?: (topic: string, value: unknown) => EnvelopeValidation;
  /** Attempts of a handler failing with an ordinary error before the message is parked (default 5). */
  maxAttempts?: number;
  /**
   * Apply consecutive messages of a partition in one transaction (default true; at most `maxBatch`, default 100).
   * Semantics are those of single messages: a batch that fails anywhere is retried one message at a time.
   */
  batch?: boolean;
  maxBatch?: number;
  /** Called after each message is settled (applied, skipped, parked): tests and progress bars. */
  onSettled?: (outcome: ConsumeOutcome, message: IncomingMessage) => void;
}

export type ConsumeOutcome = 'applied' | 'duplicate' | 'parked' | 'tombstone' | 'tombstone_skipped';

export interface RunningConsumer {
  readonly topic: string;
  readonly group: string;
  /** Outcome counts since start. */
  readonly counts: Readonly<Record<ConsumeOutcome, number>>;
  close(): Promise<void>;
}

/** SQLSTATE classes that are about the connection or the server's state, not the event: retried, never parked. */
const TRANSIENT_SQLSTATE = /^(08|40|53|57|58)/;

function isTransient(err: unknown): boolean {
  if (err instanceof RetryEventError) return true;
  if (err instanceof ParkEventError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_SQLSTATE.test(code);
  // No SQLSTATE: a network error (ECONNREFUSED, "Connection terminated", pool timeout) or a driver error.
  if (typeof code === 'string') return true;
  const msg = err instanceof Error ? err.message : String(err);
  return /connect|terminat|timeout|ECONN|EPIPE|socket|pool/i.test(msg);
}

function metric<T>(registry: Registry | undefined, name: string, make: (registers: Registry[]) => T): T | undefined {
  if (!registry) return undefined;
  return (registry.getSingleMetric(name) as T | undefined) ?? make([registry]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Subscribes `handle` to `topic` as consumer group `group` and makes it idempotent and unblockable:
 * 1. validates the message (envelope + payload contract); an invalid one is parked;
 * 2. in ONE transaction: locks the key's row in `consumer_state`, skips the event when its revision is not newer
 *    (a duplicate or a stale redelivery: counted, not applied), else runs `handle` and stores the revision;
 * 3. a handler that refuses (ParkEventError) or keeps failing is parked in `parked_events` (metric
 *    `consumer_parked_total`, a warn log line) and the partition moves on;
 * 4. database outages are retried with backoff until the database is back (nothing is lost or skipped).
 * The service's migrations must have created the tables (createConsumerTables).
 */
export async function runConsumer(opts: RunConsumerOptions): Promise<RunningConsumer> {
  const stateName = opts.stateName ?? opts.group;
  const validate = opts.validate ?? validateEnvelope;
  const maxAttempts = opts.maxAttempts ?? 5;
  const log = opts.logger.child({ consumer: stateName, topic: opts.topic });
  const labels = { group: stateName, topic: opts.topic };
  const labelNames = ['group', 'topic'] as const;
  const applied = metric(opts.registry, 'consumer_applied_total', (registers) =>
    new Counter({ name: 'consumer_applied_total', help: 'Events applied by consumers', labelNames, registers }));
  const duplicates = metric(opts.registry, 'consumer_duplicates_total', (registers) =>
    new Counter({ name: 'consumer_duplicates_total', help: 'Events skipped because their revision was not newer', labelNames, registers }));
  const parked = metric(opts.registry, 'consumer_parked_total', (registers) =>
    new Counter({ name: 'consumer_parked_total', help: 'Events parked because they could not be applied', labelNames, registers }));
  const duration = metric(opts.registry, 'consumer_apply_seconds', (registers) =>
    new Histogram({
      name: 'consumer_apply_seconds',
      help: 'Time to settle one consumed message',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }));
  const counts: Record<ConsumeOutcome, number> = { applied: 0, duplicate: 0, parked: 0, tombstone: 0, tombstone_skipped: 0 };
  let closed = false;

  const settle = (outcome: ConsumeOutcome, message: IncomingMessage) => {
    counts[outcome] += 1;
    if (outcome === 'applied') applied?.inc(labels);
    else if (outcome === 'duplicate') duplicates?.inc(labels);
    else if (outcome === 'parked') parked?.inc(labels);
    opts.onSettled?.(outcome, message);
  };

  const insertParked = async (db: Pick<EntityManager, 'query'>, message: IncomingMessage, reason: string) => {
    const value = message.value;
    const json = value !== null && typeof value === 'object' ? JSON.stringify(value) : null;
    const raw = json === null && value !== null && value !== undefined ? String(value) : null;
    await db.query(
      `INSERT INTO parked_events (consumer, topic, key, partition, "offset", payload, raw, reason)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
      [stateName, message.topic, message.key, message.partition, message.offset, json, raw, reason],
    );
  };
  const parkedLog = (message: IncomingMessage, reason: string) =>
    log.warn({ key: message.key, partition: message.partition, offset: message.offset, reason }, 'event parked: cannot be applied');

  const park = async (message: IncomingMessage, reason: string) => {
    await insertParked(opts.dataSource, message, reason);
    parkedLog(message, reason);
    settle('parked', message);
  };

  /** Envelope checks before any transaction: the envelope, or the reason to park the message. */
  const check = (message: IncomingMessage): { envelope: KnownEventEnvelope } | { reason: string } | null => {
    if (message.value === null || message.value === undefined) return null;
    const checked = validate(message.topic, message.value);
    if (!checked.ok) return { reason: `invalid event: ${checked.reason}` };
    if (message.key && checked.envelope.key !== message.key) {
      return { reason: `message key ${message.key} differs from envelope key ${checked.envelope.key}` };
    }
    return { envelope: checked.envelope };
  };

  /** Claims `envelope.revision` for its key when newer (one round trip); returns the held revision, or false. */
  const claim = async (manager: EntityManager, message: IncomingMessage, envelope: KnownEventEnvelope): Promise<{ held: number | null } | false> => {
    const [row] = (await manager.query(
      `WITH held AS (
         SELECT revision FROM consumer_state WHERE consumer = $1 AND topic = $2 AND key = $3 FOR UPDATE
       ), claimed AS (
         INSERT INTO consumer_state (consumer, topic, key, revision) VALUES ($1, $2, $3, $4)
         ON CONFLICT (consumer, topic, key) DO UPDATE SET revision = EXCLUDED.revision, updated_at = clock_timestamp()
           WHERE consumer_state.revision < EXCLUDED.revision
         RETURNING 1
       )
       SELECT (SELECT revision FROM held) AS held, EXISTS (SELECT 1 FROM claimed) AS claimed`,
      [stateName, message.topic, envelope.key, envelope.revision],
    )) as { held: string | null; claimed: boolean }[];
    return row.claimed ? { held: row.held === null ? null : Number(row.held) } : false;
  };

  const tombstone = async (manager: EntityManager, message: IncomingMessage) => {
    const rows = (await manager.query(
      'SELECT revision FROM consumer_state WHERE consumer = $1 AND topic = $2 AND key = $3 FOR UPDATE',
      [stateName, message.topic, message.key],
    )) as { revision: string }[];
    await opts.onTombstone!(message.key, { manager, message, heldRevision: rows.length > 0 ? Number(rows[0].revision) : null });
  };

  const applyOnce = async (message: IncomingMessage, envelope: KnownEventEnvelope | null): Promise<ConsumeOutcome> =>
    opts.dataSource.transaction(async (manager) => {
      if (envelope === null) {
        await tombstone(manager, message);
        return 'tombstone';
      }
      // The claim commits or rolls back with the handler's effect.
      const claimed = await claim(manager, message, envelope);
      if (!claimed) return 'duplicate';
      await opts.handle(envelope, { manager, message, heldRevision: claimed.held });
      return 'applied';
    });

  /**
   * Several consecutive messages of one partition in ONE transaction (fewer round trips and commits under load).
   * Any failure rolls the whole batch back and the messages are taken one at a time instead, so parking and
   * retries behave exactly as for single messages.
   */
  const handleBatch = async (messages: IncomingMessage[]): Promise<void> => {
    if (messages.length === 1) return handleMessage(messages[0]);
    const started = process.hrtime.bigint();
    const checks = messages.map(check);
    let outcomes: ConsumeOutcome[];
    try {
      outcomes = await opts.dataSource.transaction(async (manager) => {
        const out: ConsumeOutcome[] = [];
        for (let i = 0; i < messages.length; i += 1) {
          const message = messages[i];
          const c = checks[i];
          if (c === null) {
            if (!opts.onTombstone) out.push('tombstone_skipped');
            else {
              await tombstone(manager, message);
              out.push('tombstone');
            }
          } else if ('reason' in c) {
            await insertParked(manager, message, c.reason);
            out.push('parked');
          } else {
            const claimed = await claim(manager, message, c.envelope);
            if (!claimed) out.push('duplicate');
            else {
              await opts.handle(c.envelope, { manager, message, heldRevision: claimed.held });
              out.push('applied');
            }
          }
        }
        return out;
      });
    } catch (err) {
      if (closed) throw err;
      log.debug({ err: err instanceof Error ? err.message : String(err), messages: messages.length }, 'batch failed; one message at a time');
      for (const message of messages) await handleMessage(message);
      return;
    }
    outcomes.forEach((outcome, i) => {
      const c = checks[i];
      if (outcome === 'parked' && c !== null && 'reason' in c) parkedLog(messages[i], c.reason);
      settle(outcome, messages[i]);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9 / messages.length;
    for (let i = 0; i < messages.length; i += 1) duration?.observe(labels, seconds);
  };

  const handleMessage = async (message: IncomingMessage): Promise<void> => {
    const started = process.hrtime.bigint();
    const c = check(message);
    if (c === null && !opts.onTombstone) {
      settle('tombstone_skipped', message);
      return;
    }
    if (c !== null && 'reason' in c) {
      await park(message, c.reason);
      return;
    }
    const envelope = c === null ? null : c.envelope;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      try {
        const outcome = await applyOnce(message, envelope);
        settle(outcome, message);
        break;
      } catch (err) {
        if (err instanceof ParkEventError) {
          await park(message, err.reason);
          break;
        }
        const detail = err instanceof Error ? err.message : String(err);
        // Temporary: the transport redelivers (with backoff) until it succeeds.
        if (isTransient(err) || closed) throw err;
        if (attempt >= maxAttempts) {
          await park(message, `handler failed ${attempt} times: ${detail}`);
          break;
        }
        log.warn({ key: message.key, offset: message.offset, attempt, err: detail }, 'event handler failed; retrying');
        await sleep(Math.min(50 * 2 ** attempt, 2000));
      }
    }
    duration?.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };

  const subscription: Subscription = await opts.transport.subscribe({
    topic: opts.topic,
    group: opts.group,
    fromBeginning: opts.fromBeginning ?? true,
    handler: handleMessage,
    batchHandler: opts.batch === false ? undefined : handleBatch,
    maxBatch: opts.maxBatch ?? 100,
  });
  log.info({ group: opts.group }, 'consumer started');
  return {
    topic: opts.topic,
    group: opts.group,
    counts,
    close: async () => {
      closed = true;
      await subscription.close();
    },
  };
}
