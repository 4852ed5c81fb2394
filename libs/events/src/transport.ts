/**
 * The one interface services use to move events. Two implementations: Kafka (separate processes,
 * `KAFKA_BROKERS` set) and the in-process bus (`npm start`). Services never import either directly.
 */
export interface OutgoingMessage {
  topic: string;
  /** Always the aggregate id: events of one aggregate stay in order. */
  key: string;
  /** The JSON envelope; null is a tombstone (compaction removes the key). */
  value: unknown | null;
  /**
   * The envelope as JSON text, when the sender has it already (the outbox relay reads the stored text): a
   * transport that sends text sends it as is instead of serialising `value` again. See `jsonMessage`.
   */
  json?: string | null;
  /** Message headers: the W3C trace context (`traceparent`, `tracestate`) when tracing is on. */
  headers?: Record<string, string>;
}

/**
 * A message whose envelope is JSON text (null: a tombstone): `value` is decoded on first read only, so a
 * transport that sends text (Kafka) never parses it, and the in-process bus parses it only when a consumer takes
 * the message.
 */
export function jsonMessage(topic: string, key: string, json: string | null, headers?: Record<string, string>): OutgoingMessage {
  let decoded: { value: unknown } | undefined;
  const message = { topic, key, json, ...(headers ? { headers } : {}) } as OutgoingMessage;
  Object.defineProperty(message, 'value', {
    enumerable: true,
    get: () => (decoded ??= { value: json === null ? null : JSON.parse(json) }).value,
  });
  return message;
}

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  /** The decoded value (the JSON envelope; text when it is not JSON; null for a tombstone). */
  value: unknown | null;
  /**
   * The value's bytes as received, when the transport has them (Kafka): the consumer checks their size before
   * anything decodes them, and keeps (the start of) them when it parks the message. Kafka decodes `value` lazily.
   */
  raw?: Buffer | null;
  /** The partition's end offset (the offset the next message will get) when this message was fetched: lag. */
  highWatermark?: string;
  /** Message headers as text (the W3C trace context among them). */
  headers?: Record<string, string>;
}

export interface SubscribeOptions {
  topic: string;
  group: string;
  /** Start from the beginning of the topic when the group has no committed position. */
  fromBeginning?: boolean;
  /** Must resolve before the next message of the partition is delivered; a rejection is retried. */
  handler: (message: IncomingMessage) => Promise<void>;
  /**
   * Optional, used instead of `handler` when given: consecutive messages of ONE partition (in order, at most
   * `maxBatch`), so a consumer can apply them in one transaction. A rejection retries the same messages.
   */
  batchHandler?: (messages: IncomingMessage[]) => Promise<void>;
  /** Largest batch for `batchHandler` (default 100). */
  maxBatch?: number;
  /**
   * `subscribe` only: the longest a fetch of this subscription's consumer waits for data, at least (Kafka: its
   * `maxWaitTimeInMs` is the larger of this and the transport's KAFKA_MAX_WAIT_MS). For topics whose events are rare
   * (RARE_EVENTS_FETCH_WAIT_MS).
   */
  fetchWaitMs?: number;
}

/**
 * The fetch wait of a consumer whose topic carries few events (token revocations; custody checkpoints, one every 2 s
 * or so): EventRoute `fetchWaitMs`. A Kafka broker answers a fetch as soon as data arrives, so a longer wait costs
 * such a consumer no latency there and saves its empty fetches: at the default KAFKA_MAX_WAIT_MS of 100 ms, 10 a
 * second become 2. The librdkafka mock of the tests and benchmarks answers only when the wait has passed, so there an
 * event of such a topic may take up to this long more (revocations are promised within about a second).
 */
export const RARE_EVENTS_FETCH_WAIT_MS = 500;

export interface Subscription {
  close(): Promise<void>;
  /** The partitions of the topic this consumer holds now (Kafka: as of the last rebalance); absent in-process. */
  assignedPartitions?(): readonly number[];
}

export interface GroupPartitionOffsets {
  partition: number;
  end: number;
  committed: number;
}

export interface EventTransport {
  readonly kind: 'in-process' | 'kafka';
  publish(messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Several topics of ONE group at once, answered in the same order (Kafka: one consumer for all of them). Absent
   * where one subscription per topic costs nothing more (the in-process bus).
   */
  subscribeAll?(options: SubscribeOptions[]): Promise<Subscription[]>;
  /** Throws when the transport cannot currently reach its broker (readiness). */
  check(): Promise<void>;
  /**
   * Per partition of `topic`: its end (the offset the next message will get) and the position `group` has
   * committed there (the partition's start when it has none). Kafka only (readiness: a restarted consumer is
   * `catching up` until its committed positions reach the ends it started behind); the in-process bus has no
   * backlog to catch up on. Throws when the broker cannot answer, or does not know the topic yet.
   */
  groupOffsets?(group: string, topic: string): Promise<GroupPartitionOffsets[]>;
  close(): Promise<void>;
}
