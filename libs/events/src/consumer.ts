import { ROOT_CONTEXT } from '@opentelemetry/api';
import { contextFromHeaders, SpanKind, startSpan, withSpan } from './tracing';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { Tx, UnitOfWork } from '@dtp/database';
import { EnvelopeValidation, KnownEventEnvelope, scanJson, validateEnvelope } from '@dtp/domain';
import { boundedJsonText, storableText } from './bounded-json';
import { metric } from './metrics';
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
 * in place with backoff; if it still fails after `maxTransientAttempts` attempts (counted only while the database
 * answers), it is parked as `retries_exhausted` so that the partition moves on.
 */
export class RetryEventError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetryEventError';
  }
}

export interface ConsumeContext {
  /**
   * The transaction (the service's UnitOfWork): every write of the handler goes through it, in the same
   * transaction as the progress; side effects that must follow the commit go to `tx.afterCommit`.
   */
  tx: Tx;
  /** The same transaction's EntityManager. */
  manager: EntityManager;
  message: IncomingMessage;
  /** The revision this database held for the key before this event (null: never seen). */
  heldRevision: number | null;
}

/** One event given to `handleMany`: the event, its message, and the revision held for its key before it. */
export interface ConsumedEvent {
  envelope: KnownEventEnvelope;
  message: IncomingMessage;
  /** The revision this database held for the key before this event (null: never seen). */
  heldRevision: number | null;
}

/** The transaction of a `handleMany` call (every write of the handler goes through it, as in ConsumeContext). */
export interface BatchContext {
  tx: Tx;
  manager: EntityManager;
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
  /** The service's unit of work (its commit listeners run after each consumer transaction); default: one over dataSource. */
  unitOfWork?: UnitOfWork;
  logger: Logger;
  /**
   * The service's Prometheus registry (ctx.metrics.registry): applied / duplicate / parked counters and the
   * lag / stuck / degraded gauges the service kit's readiness reads (`events` component).
   */
  registry?: Registry;
  /** Start from the beginning of the topic when the group has no committed position (default true). */
  fromBeginning?: boolean;
  /**
   * Applies one validated event inside a transaction. Runs only when `envelope.revision` is newer than what this
   * database holds for `envelope.key`; the new revision is recorded in the same transaction. Throw ParkEventError
   * to park, RetryEventError for a temporary failure (retried, parked after `maxTransientAttempts`); any other
   * error that is not a known temporary one (isTransientError) parks the message at once.
   */
  handle?: (envelope: KnownEventEnvelope, ctx: ConsumeContext) => Promise<void>;
  /**
   * Instead of `handle`: applies several claimed events at once, in one transaction (a run of consecutive events of
   * a partition with distinct keys, in offset order; each newer than what this database holds for its key). A
   * handler that writes them in one statement saves a round trip per event, which is what keeps a consumer up with
   * a busy topic. Any error rolls the batch back and its messages are taken one at a time, `handleMany` then
   * getting one event, so parking and retries are those of single messages.
   */
  handleMany?: (events: ConsumedEvent[], ctx: BatchContext) => Promise<void>;
  /** Applies a tombstone (null value) for `key`, in a transaction. Without it tombstones are skipped. */
  onTombstone?: (key: string, ctx: ConsumeContext) => Promise<void>;
  /** Defaults to @dtp/domain's validateEnvelope (envelope + payload contract of the topic). */
  validate?: (topic: string, value: unknown) => EnvelopeValidation;
  /**
   * Attempts of a message failing with a temporary error (isTransientError) before it is parked as
   * `retries_exhausted` (default 30; with the transports' backoff capped at 5 s, a few minutes). Attempts made
   * while the database itself does not answer are not counted: an outage never parks anything.
   */
  maxTransientAttempts?: number;
  /** Largest message value in bytes; a bigger one is parked as `too_large` before it is decoded (default 1 MiB). */
  maxMessageBytes?: number;
  /**
   * Deepest nesting of a message value (objects/arrays, the envelope being level 1); a deeper one is parked as
   * `too_deep` before validation touches it (class-transformer and class-validator recurse). Default 64: a
   * request body may nest 32 levels, and its record sits 2 levels down in the envelope.
   */
  maxDepth?: number;
  /** Consecutive failures of one message after which its partition counts as stuck (readiness degraded; default 3). */
  stuckAfterFailures?: number;
  /** Messages behind the end of the partitions past which the consumer counts as lagging (default 1000). */
  lagThreshold?: number;
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

/**
 * Why a message was parked (the `reason` label of `consumer_parked_total`; the stored reason text starts with
 * it for the first three):
 * - `too_large`: the value is bigger than maxMessageBytes;
 * - `too_deep`: the value nests deeper than maxDepth;
 * - `invalid`: not JSON, not an envelope of this topic, a payload that breaks its contract, a key mismatch;
 * - `undecodable`: decoding or validating it threw (a bug or a hostile value the checks above missed);
 * - `refused`: the handler threw ParkEventError;
 * - `handler_error`: the handler (or the database) failed with an error that is not a known temporary one;
 * - `retries_exhausted`: it failed with temporary errors maxTransientAttempts times while the database answered.
 */
export type ParkReason = 'too_large' | 'too_deep' | 'invalid' | 'undecodable' | 'refused' | 'handler_error' | 'retries_exhausted';
export const PARK_REASONS: readonly ParkReason[] = ['too_large', 'too_deep', 'invalid', 'undecodable', 'refused', 'handler_error', 'retries_exhausted'];

export interface ConsumerHealthSnapshot {
  /** Messages behind the end of the partitions, as of their last fetch. */
  lag: number;
  /** Partitions whose next message has failed stuckAfterFailures times or more in a row. */
  stuckPartitions: number;
  /** Stuck, or lagging past lagThreshold. */
  degraded: boolean;
  /** Parked since start, by reason. */
  parked: Readonly<Partial<Record<ParkReason, number>>>;
  /** The partitions this consumer holds (Kafka; absent in-process). */
  assignedPartitions?: readonly number[];
}

export interface RunningConsumer {
  readonly topic: string;
  readonly group: string;
  /** Outcome counts since start. */
  readonly counts: Readonly<Record<ConsumeOutcome, number>>;
  health(): ConsumerHealthSnapshot;
  /**
   * Per partition this instance has consumed from: the offset after the last message it settled (applied,
   * skipped or parked). Ahead of the group's committed offsets, which Kafka receives at most every second and only
   * while messages flow.
   */
  settled(): ReadonlyMap<number, number>;
  close(): Promise<void>;
}

/*
 * Temporary errors: about the connection or the server's state, not the event. Retried in place (the partition
 * waits); parked only after maxTransientAttempts attempts made while the database answered. Everything else is
 * parked at once with its message.
 */
/** SQLSTATE classes: 08 connection exception, 40 transaction rollback (40001 serialization failure, 40P01
 * deadlock), 53 insufficient resources (too many connections, out of memory, disk full), 58 system error. */
const TRANSIENT_SQLSTATE_CLASSES = /^(08|40|53|58)/;
/** Single SQLSTATEs: lock not available, query canceled (statement timeout), admin/crash shutdown, starting up. */
const TRANSIENT_SQLSTATES = new Set(['55P03', '57014', '57P01', '57P02', '57P03']);
/** Node network errors. */
const TRANSIENT_NET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'ENOTFOUND', 'EAI_AGAIN', 'ESOCKETTIMEDOUT',
]);
/** Driver errors without a code (node-postgres, the TypeORM pool). */
const TRANSIENT_MESSAGES =
  /connection terminated|connection ended unexpectedly|terminating connection|timeout exceeded when trying to connect|connection timeout|client has encountered a connection error|connect ECONNREFUSED/i;

/**
 * True for the known temporary errors (listed above), RetryEventError, and an S3/HTTP client error that says it is
 * retryable (`$retryable`, a 429 or 5xx status); looks through `driverError` and `cause` (a few levels).
 */
export function isTransientError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && e !== undefined; depth += 1) {
    if (e instanceof RetryEventError) return true;
    if (e instanceof ParkEventError) return false;
    const x = e as { code?: unknown; message?: unknown; $retryable?: unknown; $metadata?: { httpStatusCode?: unknown }; driverError?: unknown; cause?: unknown };
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (code && /^[0-9A-Z]{5}$/.test(code) && (TRANSIENT_SQLSTATE_CLASSES.test(code) || TRANSIENT_SQLSTATES.has(code))) return true;
    if (code && TRANSIENT_NET_CODES.has(code)) return true;
    if (x.$retryable) return true;
    const status = x.$metadata?.httpStatusCode;
    if (typeof status === 'number' && (status === 429 || status >= 500)) return true;
    if (typeof x.message === 'string' && TRANSIENT_MESSAGES.test(x.message)) return true;
    e = x.driverError ?? x.cause;
  }
  return false;
}

/** The running consumers of each registry, for the gauges (collected at scrape time). */
interface GaugeSource {
  labels: { group: string; topic: string };
  health(): ConsumerHealthSnapshot;
}
const gaugeSources = new WeakMap<Registry, Set<GaugeSource>>();

function registerGauges(registry: Registry, source: GaugeSource): () => void {
  let sources = gaugeSources.get(registry);
  if (!sources) {
    sources = new Set();
    gaugeSources.set(registry, sources);
  }
  sources.add(source);
  const labelNames = ['group', 'topic'] as const;
  const gauge = (name: string, help: string, value: (h: ConsumerHealthSnapshot) => number | undefined) =>
    metric(registry, name, (registers) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect(this: Gauge<'group' | 'topic'>) {
          this.reset();
          for (const s of gaugeSources.get(registry) ?? []) {
            const v = value(s.health());
            if (v !== undefined) this.set(s.labels, v);
          }
        },
      }));
  gauge('consumer_lag_messages', 'Messages behind the end of the partitions, as of their last fetch', (h) => h.lag);
  gauge('consumer_stuck_partitions', 'Partitions whose next message keeps failing', (h) => h.stuckPartitions);
  gauge('consumer_degraded', '1 while the consumer is stuck or lagging past its threshold', (h) => (h.degraded ? 1 : 0));
  gauge('consumer_assigned_partitions', 'Partitions of the topic this replica holds in its consumer group (Kafka)', (h) => h.assignedPartitions?.length);
  return () => sources.delete(source);
}

/** Longest excerpt of a parked message kept in `parked_events.raw` when the payload itself cannot be kept. */
const RAW_KEEP_CHARS = 64 * 1024;

const errorText = (err: unknown): string => {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'unprintable error';
  }
};

interface Park {
  reason: ParkReason;
  text: string;
}

type Inspection = { kind: 'tombstone' } | { kind: 'park'; park: Park } | { kind: 'event'; envelope: KnownEventEnvelope };

/** Per partition: the offset of the next message to settle and the end of the partition at the last fetch. */
interface PartitionPosition {
  next: number;
  highWatermark?: number;
  seenAt: number;
}

/**
 * A partition not delivered from for this long no longer counts towards the lag (it was revoked in a rebalance,
 * or it is idle and caught up); a stuck or busy partition is delivered from at least every few seconds.
 */
const POSITION_FRESH_MS = 120_000;

/** Per message that failed with temporary errors: all failures, and those counted (the database answered). */
interface Failures {
  partition: number;
  failures: number;
  counted: number;
  lastAt: number;
}

/** A failing message counts as stuck only while it keeps failing (the transports retry at least every 5 s). */
const STUCK_FRESH_MS = 60_000;

/**
 * The consumer's claim: $1 state name, $2 topic, $3 keys (distinct), $4 revisions. Locks the held rows of the keys,
 * stores each revision that is newer, and returns per input, in order, the revision held before (`held`) and
 * whether it was newer (`claimed`).
 * The held rows are looked up with `key = ANY($3)`, an index lookup whatever PostgreSQL's statistics say. The
 * join with the unnested input it replaces was planned, while `consumer_state` had not been analyzed since it
 * grew, as a walk over every key of the (consumer, topic) keeping only the input's: 54 ms per claim at 30,000
 * keys instead of 0.01 ms, and search fell seconds behind registrations at 1,000/s (docs/events.md).
 */
export const CLAIM_SQL = `WITH input AS (
  SELECT * FROM unnest($3::text[], $4::bigint[]) WITH ORDINALITY AS i(key, revision, ord)
), held AS (
  SELECT s.key, s.revision FROM consumer_state s
  WHERE s.consumer = $1 AND s.topic = $2 AND s.key = ANY($3::text[]) ORDER BY s.key FOR UPDATE OF s
), claimed AS (
  INSERT INTO consumer_state (consumer, topic, key, revision) SELECT $1, $2, key, revision FROM input ORDER BY key
  ON CONFLICT (consumer, topic, key) DO UPDATE SET revision = EXCLUDED.revision, updated_at = clock_timestamp()
    WHERE consumer_state.revision < EXCLUDED.revision
  RETURNING key
)
SELECT held.revision AS held, claimed.key IS NOT NULL AS claimed
FROM input LEFT JOIN held USING (key) LEFT JOIN claimed USING (key) ORDER BY input.ord`;

/**
 * Subscribes `handle` to `topic` as consumer group `group` and makes it idempotent, total and unblockable:
 * 1. inspects the message before anything decodes or validates it in depth: bigger than maxMessageBytes, parked
 *    `too_large`; nested deeper than maxDepth (an iterative walk), parked `too_deep`; then validates it (envelope +
 *    payload contract); an invalid one is parked; an exception while doing any of that is parked `undecodable`;
 * 2. in ONE transaction: locks the key's row in `consumer_state`, skips the event when its revision is not newer
 *    (a duplicate or a stale redelivery: counted, not applied), else runs `handle` and stores the revision;
 * 3. classifies any failure: ParkEventError and every error that is not a known temporary one are parked in
 *    `parked_events` (metric `consumer_parked_total{reason}`, a warn log line) and the partition moves on;
 * 4. temporary failures (database outages, deadlocks, RetryEventError: isTransientError) are retried with backoff;
 *    after maxTransientAttempts attempts made while the database answered, parked `retries_exhausted`.
 * Gauges `consumer_lag_messages`, `consumer_stuck_partitions` and `consumer_degraded` feed readiness.
 * The service's migrations must have created the tables (createConsumerTables).
 */
export async function runConsumer(opts: RunConsumerOptions): Promise<RunningConsumer> {
  if (!opts.handle === !opts.handleMany) throw new Error('runConsumer: give exactly one of handle and handleMany');
  const stateName = opts.stateName ?? opts.group;
  const uow = opts.unitOfWork ?? new UnitOfWork(opts.dataSource);
  const validate = opts.validate ?? validateEnvelope;
  const maxTransientAttempts = opts.maxTransientAttempts ?? 30;
  const maxMessageBytes = opts.maxMessageBytes ?? 1024 * 1024;
  const maxDepth = opts.maxDepth ?? 64;
  const stuckAfter = opts.stuckAfterFailures ?? 3;
  const lagThreshold = opts.lagThreshold ?? 1000;
  const log = opts.logger.child({ consumer: stateName, topic: opts.topic });
  const labels = { group: stateName, topic: opts.topic };
  const labelNames = ['group', 'topic'] as const;
  const applied = metric(opts.registry, 'consumer_applied_total', (registers) =>
    new Counter({ name: 'consumer_applied_total', help: 'Events applied by consumers', labelNames, registers }));
  const duplicates = metric(opts.registry, 'consumer_duplicates_total', (registers) =>
    new Counter({ name: 'consumer_duplicates_total', help: 'Events skipped because their revision was not newer', labelNames, registers }));
  const parkedCounter = metric(opts.registry, 'consumer_parked_total', (registers) =>
    new Counter({
      name: 'consumer_parked_total',
      help: 'Events parked because they could not be applied, by reason (too_large, too_deep, invalid, undecodable, refused, handler_error, retries_exhausted)',
      labelNames: ['group', 'topic', 'reason'] as const,
      registers,
    }));
  const duration = metric(opts.registry, 'consumer_apply_seconds', (registers) =>
    new Histogram({
      name: 'consumer_apply_seconds',
      help: 'Time to settle one consumed message',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }));
  const counts: Record<ConsumeOutcome, number> = { applied: 0, duplicate: 0, parked: 0, tombstone: 0, tombstone_skipped: 0 };
  const parkedBy: Partial<Record<ParkReason, number>> = {};
  const positions = new Map<number, PartitionPosition>();
  const failing = new Map<string, Failures>();
  const messageId = (m: IncomingMessage) => `${m.partition}:${m.offset}`;
  let closed = false;
  const live: { subscription?: Subscription } = {};

  const health = (): ConsumerHealthSnapshot => {
    const now = Date.now();
    let lag = 0;
    for (const p of positions.values()) {
      if (p.highWatermark !== undefined && now - p.seenAt < POSITION_FRESH_MS) lag += Math.max(0, p.highWatermark - p.next);
    }
    const stuck = new Set<number>();
    for (const f of failing.values()) if (f.failures >= stuckAfter && now - f.lastAt < STUCK_FRESH_MS) stuck.add(f.partition);
    const assignedPartitions = live.subscription?.assignedPartitions?.();
    return { lag, stuckPartitions: stuck.size, degraded: stuck.size > 0 || lag > lagThreshold, parked: { ...parkedBy }, ...(assignedPartitions ? { assignedPartitions } : {}) };
  };
  const unregister = opts.registry ? registerGauges(opts.registry, { labels, health }) : () => undefined;

  /** A message was delivered: its partition's end as of that fetch (the lag). */
  const track = (message: IncomingMessage): void => {
    const p = positions.get(message.partition);
    const hw = message.highWatermark === undefined ? undefined : Number(message.highWatermark);
    if (!p) positions.set(message.partition, { next: Number(message.offset), highWatermark: hw, seenAt: Date.now() });
    else {
      p.seenAt = Date.now();
      if (hw !== undefined) p.highWatermark = Math.max(p.highWatermark ?? 0, hw);
    }
  };

  const settle = (outcome: ConsumeOutcome, message: IncomingMessage, reason?: ParkReason) => {
    counts[outcome] += 1;
    const p = positions.get(message.partition);
    if (p) p.next = Math.max(p.next, Number(message.offset) + 1);
    failing.delete(messageId(message));
    if (outcome === 'applied') applied?.inc(labels);
    else if (outcome === 'duplicate') duplicates?.inc(labels);
    else if (outcome === 'parked' && reason) {
      parkedBy[reason] = (parkedBy[reason] ?? 0) + 1;
      parkedCounter?.inc({ ...labels, reason });
    }
    try {
      opts.onSettled?.(outcome, message);
    } catch (err) {
      log.error({ err: errorText(err) }, 'onSettled threw; ignored');
    }
  };

  /**
   * The row kept for a parked message, in decreasing fidelity: the payload as JSON (and the value as text when it
   * is not JSON); for a too large or too deep value only the start of its text; at last the reason alone.
   */
  const parkedRows = (message: IncomingMessage, park: Park): { payload: string | null; raw: string | null }[] => {
    const rawText = () =>
      message.raw ? storableText(message.raw.subarray(0, RAW_KEEP_CHARS).toString('utf8'), RAW_KEEP_CHARS) : null;
    const excerpt = () => {
      if (message.raw) return rawText();
      const value = message.value;
      if (value === null || value === undefined) return null;
      return storableText(typeof value === 'string' ? value : boundedJsonText(value, RAW_KEEP_CHARS), RAW_KEEP_CHARS);
    };
    const rows: { payload: string | null; raw: string | null }[] = [];
    if (park.reason !== 'too_large' && park.reason !== 'too_deep') {
      try {
        const value = message.value;
        const payload = value !== null && typeof value === 'object' ? JSON.stringify(value) : null;
        const raw = payload === null && value !== null && value !== undefined ? storableText(String(value), RAW_KEEP_CHARS) : null;
        rows.push({ payload, raw });
      } catch {
        // Not serializable as is: the excerpt below.
      }
    }
    try {
      rows.push({ payload: null, raw: excerpt() });
    } catch {
      // Nothing readable: the reason alone.
    }
    rows.push({ payload: null, raw: null });
    return rows;
  };

  const insertParked = async (db: { query(text: string, params?: unknown[]): Promise<unknown> }, message: IncomingMessage, park: Park, row: { payload: string | null; raw: string | null }) => {
    await db.query(
      `INSERT INTO parked_events (consumer, topic, key, partition, "offset", payload, raw, reason)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
      [stateName, message.topic, storableText(message.key, 1000), message.partition, message.offset, row.payload, row.raw, storableText(park.text, 4000)],
    );
  };
  const parkedLog = (message: IncomingMessage, park: Park) =>
    log.warn({ key: message.key, partition: message.partition, offset: message.offset, reason: park.reason, detail: park.text.slice(0, 1000) }, 'event parked: cannot be applied');

  /**
   * Parks `message`: stores the most faithful row the database takes (a payload with NUL or lone surrogates is
   * refused by jsonb: then an excerpt as text). A temporary database failure is thrown (the message comes again);
   * if no row at all can be stored, that is logged and the partition still moves on.
   */
  const park = async (message: IncomingMessage, p: Park) => {
    let stored = false;
    for (const row of parkedRows(message, p)) {
      try {
        await insertParked(opts.dataSource, message, p, row);
        stored = true;
        break;
      } catch (err) {
        if (isTransientError(err) || closed) throw err;
        log.debug({ err: errorText(err) }, 'parked row refused; storing less of it');
      }
    }
    if (!stored) log.error({ key: message.key, partition: message.partition, offset: message.offset, reason: p.reason }, 'could not store the parked event; moving on');
    parkedLog(message, p);
    settle('parked', message, p.reason);
  };

  /**
   * Everything about a message before any transaction, without ever throwing: its size (before decoding), its
   * depth (iteratively, before validation recurses), its envelope and payload contract, its key.
   */
  const inspect = (message: IncomingMessage): Inspection => {
    try {
      if (message.raw === null) return { kind: 'tombstone' };
      if (message.raw && message.raw.length > maxMessageBytes) {
        return { kind: 'park', park: { reason: 'too_large', text: `too_large: ${message.raw.length} bytes, more than the ${maxMessageBytes} a message may have` } };
      }
      let value = message.value;
      if (value === null || value === undefined) return { kind: 'tombstone' };
      if (typeof value === 'string' || value instanceof Uint8Array) {
        const text = typeof value === 'string' ? value : Buffer.from(value).toString('utf8');
        const bytes = message.raw ? message.raw.length : Buffer.byteLength(text, 'utf8');
        if (bytes > maxMessageBytes) {
          return { kind: 'park', park: { reason: 'too_large', text: `too_large: ${bytes} bytes, more than the ${maxMessageBytes} a message may have` } };
        }
        try {
          value = JSON.parse(text) as unknown;
        } catch {
          return { kind: 'park', park: { reason: 'invalid', text: 'invalid event: message value is not valid JSON' } };
        }
      }
      const scan = scanJson(value, { maxDepth, maxBytes: message.raw ? undefined : maxMessageBytes, maxIssues: 1 });
      const issue = scan.issues[0];
      if (issue?.kind === 'too_deep') {
        const more = issue.path.length > 8 ? ` … (${issue.path.length - 8} more)` : '';
        const at = `${issue.path.slice(0, 8).join('.')}${more}`;
        return { kind: 'park', park: { reason: 'too_deep', text: `too_deep: nested more than ${maxDepth} levels, at ${at}` } };
      }
      if (issue?.kind === 'too_large') {
        return { kind: 'park', park: { reason: 'too_large', text: `too_large: about ${scan.bytes} bytes as JSON, more than the ${maxMessageBytes} a message may have` } };
      }
      const checked = validate(message.topic, value);
      if (!checked.ok) return { kind: 'park', park: { reason: 'invalid', text: `invalid event: ${checked.reason}` } };
      if (message.key && checked.envelope.key !== message.key) {
        return { kind: 'park', park: { reason: 'invalid', text: `message key ${message.key} differs from envelope key ${checked.envelope.key}` } };
      }
      return { kind: 'event', envelope: checked.envelope };
    } catch (err) {
      return { kind: 'park', park: { reason: 'undecodable', text: `undecodable: decoding or validating it failed: ${errorText(err)}` } };
    }
  };

  /**
   * Claims each event's revision for its key when newer, for events of distinct keys, in one round trip (one event
   * alone, or a batch's run of events); the rows stay locked until the transaction ends. Returns, in input order,
   * the revision held before for each claimed event, or false (not newer: a duplicate).
   */
  const claimAll = async (tx: Tx, topic: string, envelopes: KnownEventEnvelope[]): Promise<({ held: number | null } | false)[]> => {
    const rows = (await tx.rows(CLAIM_SQL, [stateName, topic, envelopes.map((e) => e.key), envelopes.map((e) => e.revision)])) as {
      held: string | null;
      claimed: boolean;
    }[];
    return rows.map((row) => (row.claimed ? { held: row.held === null ? null : Number(row.held) } : false));
  };

  const tombstone = async (tx: Tx, message: IncomingMessage) => {
    const rows = (await tx.rows(
      'SELECT revision FROM consumer_state WHERE consumer = $1 AND topic = $2 AND key = $3 FOR UPDATE',
      [stateName, message.topic, message.key],
    )) as { revision: string }[];
    await opts.onTombstone!(message.key, { tx, manager: tx.manager, message, heldRevision: rows.length > 0 ? Number(rows[0].revision) : null });
  };

  const applyOnce = async (message: IncomingMessage, envelope: KnownEventEnvelope | null): Promise<ConsumeOutcome> =>
    uow.run(async (tx): Promise<ConsumeOutcome> => {
      if (envelope === null) {
        await tombstone(tx, message);
        return 'tombstone';
      }
      // The claim commits or rolls back with the handler's effect.
      const [claimed] = await claimAll(tx, message.topic, [envelope]);
      if (!claimed) return 'duplicate';
      if (opts.handle) await opts.handle(envelope, { tx, manager: tx.manager, message, heldRevision: claimed.held });
      else await opts.handleMany!([{ envelope, message, heldRevision: claimed.held }], { tx, manager: tx.manager });
      return 'applied';
    });

  /** Whether the database answers now (a failure while it does not is the outage's, not the message's). */
  const databaseAnswers = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        opts.dataSource.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('probe timed out')), 2000);
        }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  };

  /**
   * Several consecutive messages of one partition in ONE transaction (fewer round trips and commits under load).
   * Any failure rolls the whole batch back and the messages are taken one at a time instead, so parking and
   * retries behave exactly as for single messages.
   */
  // Each message is handled in a `process <topic>` span continuing the trace its headers carry (in a batch, each
  // handler call in its own message's span, inside the batch's one transaction); without tracing, no-ops.
  const messageSpanAttributes = (message: IncomingMessage) => ({
    'messaging.destination.name': opts.topic,
    'messaging.consumer.group.name': opts.group,
    'messaging.operation.type': 'process',
    'messaging.kafka.offset': message.offset,
  });
  /** Runs `fn` in a `process <topic>` span continuing the trace `message` carries. */
  const inMessageSpan = <T>(message: IncomingMessage, fn: () => Promise<T>): Promise<T> =>
    withSpan(`process ${opts.topic}`, SpanKind.CONSUMER, contextFromHeaders(message.headers), messageSpanAttributes(message), fn);
  const tracedMessage = (message: IncomingMessage): Promise<void> => inMessageSpan(message, () => handleMessage(message));

  /**
   * `handleMany` on the claimed events of a run. One event: in its `process <topic>` span. Several: each message
   * still gets its `process <topic>` span, a child of its headers' context (the writer's trace goes on), and the
   * handler runs inside one more `process <topic>` span, linked to all of them (OpenTelemetry's convention for
   * batches), under which its SQL spans nest.
   */
  const tracedMany = async (events: ConsumedEvent[], tx: Tx): Promise<void> => {
    if (events.length === 1) return inMessageSpan(events[0].message, () => opts.handleMany!(events, { tx, manager: tx.manager }));
    const spans = events.map((e) => startSpan(`process ${opts.topic}`, SpanKind.CONSUMER, contextFromHeaders(e.message.headers), messageSpanAttributes(e.message)));
    const links = spans.map((span) => ({ context: span.spanContext() }));
    const attributes = { ...messageSpanAttributes(events[0].message), 'messaging.batch.message_count': events.length };
    try {
      // A failure is the batch span's (recorded by withSpan): the messages are then taken one at a time, each in a
      // span of its own that says how it went.
      await withSpan(`process ${opts.topic}`, SpanKind.CONSUMER, ROOT_CONTEXT, attributes, () => opts.handleMany!(events, { tx, manager: tx.manager }), links);
    } finally {
      for (const span of spans) span.end();
    }
  };

  const handleBatch = async (messages: IncomingMessage[]): Promise<void> => {
    if (messages.length === 1) return tracedMessage(messages[0]);
    const started = process.hrtime.bigint();
    for (const message of messages) track(message);
    const checks = messages.map(inspect);
    let outcomes: ConsumeOutcome[];
    try {
      outcomes = await uow.run(async (tx) => {
        const out: ConsumeOutcome[] = [];
        for (let i = 0; i < messages.length; i += 1) {
          const message = messages[i];
          const c = checks[i];
          if (c.kind === 'event') {
            // A run of consecutive events with distinct keys: claimed in one statement, then applied in order
            // (handle) or at once (handleMany). A repeated key, a tombstone or a parked message ends a run, so
            // every claim still sees what the messages before it did.
            const run: ConsumedEvent[] = [];
            const keys = new Set<string>();
            for (let j = i; j < messages.length; j += 1) {
              const cj = checks[j];
              if (cj.kind !== 'event' || keys.has(cj.envelope.key)) break;
              keys.add(cj.envelope.key);
              run.push({ envelope: cj.envelope, message: messages[j], heldRevision: null });
            }
            const got = await claimAll(tx, message.topic, run.map((r) => r.envelope));
            const claimed: ConsumedEvent[] = [];
            run.forEach((r, k) => {
              const g = got[k];
              out.push(g ? 'applied' : 'duplicate');
              if (g) claimed.push({ ...r, heldRevision: g.held });
            });
            if (opts.handleMany) {
              if (claimed.length > 0) await tracedMany(claimed, tx);
            } else {
              for (const r of claimed) {
                await inMessageSpan(r.message, () => opts.handle!(r.envelope, { tx, manager: tx.manager, message: r.message, heldRevision: r.heldRevision }));
              }
            }
            i += run.length - 1;
          } else if (c.kind === 'tombstone') {
            if (!opts.onTombstone) out.push('tombstone_skipped');
            else {
              await tombstone(tx, message);
              out.push('tombstone');
            }
          } else if (c.kind === 'park') {
            // The most faithful row only: if the database refuses it, the batch falls back to single messages.
            await insertParked(tx, message, c.park, parkedRows(message, c.park)[0]);
            out.push('parked');
          }
        }
        return out;
      });
    } catch (err) {
      if (closed) throw err;
      log.debug({ err: errorText(err), messages: messages.length }, 'batch failed; one message at a time');
      for (const message of messages) await tracedMessage(message);
      return;
    }
    outcomes.forEach((outcome, i) => {
      const c = checks[i];
      if (c.kind === 'park') {
        parkedLog(messages[i], c.park);
        settle(outcome, messages[i], c.park.reason);
      } else settle(outcome, messages[i]);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9 / messages.length;
    for (let i = 0; i < messages.length; i += 1) duration?.observe(labels, seconds);
  };

  const handleMessage = async (message: IncomingMessage): Promise<void> => {
    const started = process.hrtime.bigint();
    track(message);
    const c = inspect(message);
    if (c.kind === 'tombstone' && !opts.onTombstone) {
      settle('tombstone_skipped', message);
      return;
    }
    if (c.kind === 'park') {
      await park(message, c.park);
      return;
    }
    try {
      const outcome = await applyOnce(message, c.kind === 'event' ? c.envelope : null);
      settle(outcome, message);
    } catch (err) {
      if (closed) throw err;
      if (err instanceof ParkEventError) {
        await park(message, { reason: 'refused', text: err.reason });
        return;
      }
      const detail = errorText(err);
      if (!isTransientError(err)) {
        await park(message, { reason: 'handler_error', text: `handler failed: ${detail}` });
        return;
      }
      const id = messageId(message);
      const state = failing.get(id) ?? { partition: message.partition, failures: 0, counted: 0, lastAt: 0 };
      failing.set(id, state);
      state.failures += 1;
      state.lastAt = Date.now();
      if (await databaseAnswers()) state.counted += 1;
      if (state.counted >= maxTransientAttempts) {
        await park(message, {
          reason: 'retries_exhausted',
          text: `retries_exhausted: failed ${state.counted} times with a temporary error while the database answered: ${detail}`,
        });
        return;
      }
      log.warn(
        { key: message.key, partition: message.partition, offset: message.offset, failures: state.failures, counted: state.counted, err: detail },
        'event failed with a temporary error; retrying',
      );
      // The transport redelivers it with backoff; the partition waits.
      throw err;
    }
    duration?.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  };

  const subscription = await opts.transport.subscribe({
    topic: opts.topic,
    group: opts.group,
    fromBeginning: opts.fromBeginning ?? true,
    handler: tracedMessage,
    batchHandler: opts.batch === false ? undefined : handleBatch,
    maxBatch: opts.maxBatch ?? 100,
  });
  live.subscription = subscription;
  log.info({ group: opts.group }, 'consumer started');
  return {
    topic: opts.topic,
    group: opts.group,
    counts,
    health,
    settled: () => new Map([...positions].map(([partition, p]) => [partition, p.next])),
    close: async () => {
      closed = true;
      unregister();
      await subscription.close();
    },
  };
}
