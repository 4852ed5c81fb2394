import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import type { Tx, UnitOfWork } from '@dtp/database';
import type { EnvelopeOf, EnvelopeValidation } from '@dtp/domain';
import type { EventTransport, IncomingMessage } from '../transport';

/*
 * What a consumer of topic `T` is given and gives back. `T` is the topic's literal type (Topics in @dtp/domain):
 * its handlers see only the topic's event types (EnvelopeOf<T>); a plain `string` topic sees every known one.
 */

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
export interface ConsumedEvent<T extends string = string> {
  envelope: EnvelopeOf<T>;
  message: IncomingMessage;
  /** The revision this database held for the key before this event (null: never seen). */
  heldRevision: number | null;
}

/** The transaction of a `handleMany` call (every write of the handler goes through it, as in ConsumeContext). */
export interface BatchContext {
  tx: Tx;
  manager: EntityManager;
}

/**
 * One message as a handler of items takes it (itemHandlers; the EventsServer's `many` routes): an event with the
 * revision held before it, or a tombstone (`event` null).
 */
export interface EventItem<T extends string = string> {
  /** The event, or null for a tombstone. */
  event: EnvelopeOf<T> | null;
  key: string;
  /** The revision the service held for the key before this message (null: never seen). */
  heldRevision: number | null;
  message: IncomingMessage;
}

export interface RunConsumerOptions<T extends string = string> {
  transport: Pick<EventTransport, 'subscribe'>;
  topic: T;
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
  /** The least fetch wait of the consumer (SubscribeOptions `fetchWaitMs`): for a topic whose events are rare. */
  fetchWaitMs?: number;
  /**
   * Applies one validated event inside a transaction. Runs only when `envelope.revision` is newer than what this
   * database holds for `envelope.key`; the new revision is recorded in the same transaction. Throw ParkEventError
   * to park, RetryEventError for a temporary failure (retried, parked after `maxTransientAttempts`); any other
   * error that is not a known temporary one (isTransientError) parks the message at once.
   */
  handle?: (envelope: EnvelopeOf<T>, ctx: ConsumeContext) => Promise<void>;
  /**
   * Instead of `handle`: applies several claimed events at once, in one transaction (a run of consecutive events of
   * a partition with distinct keys, in offset order; each newer than what this database holds for its key). A
   * handler that writes them in one statement saves a round trip per event, which is what keeps a consumer up with
   * a busy topic. Any error rolls the batch back and its messages are taken one at a time, `handleMany` then
   * getting one event, so parking and retries are those of single messages.
   */
  handleMany?: (events: ConsumedEvent<T>[], ctx: BatchContext) => Promise<void>;
  /** Applies a tombstone (null value) for `key`, in a transaction. Without it tombstones are skipped. */
  onTombstone?: (key: string, ctx: ConsumeContext) => Promise<void>;
  /** Defaults to @dtp/domain's validateEnvelope (envelope + payload contract of the topic). */
  validate?: (topic: T, value: unknown) => EnvelopeValidation<T>;
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

/** Why a message is parked, and the text stored with it. */
export interface Park {
  reason: ParkReason;
  text: string;
}

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
