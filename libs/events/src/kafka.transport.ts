import net from 'node:net';
import tls from 'node:tls';
import { Admin, Consumer, ISocketFactory, Kafka, KafkaMessage, logLevel, Partitioners, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { describeKafkaSecurity, KafkaSecurity, kafkaSecurityFromEnv } from './kafka-config';
import { fixKafkajsIdleTimer } from './kafkajs-request-queue';
import { EventTransport, GroupPartitionOffsets, IncomingMessage, OutgoingMessage, SubscribeOptions, Subscription } from './transport';

// The package's index re-exports this module: TLS/SASL configuration is public through it.

export interface KafkaTransportOptions {
  clientId: string;
  brokers: string[];
  logger: Logger;
  /** How long a fetch waits for data before returning empty (default 100 ms: low latency, small cost). */
  maxWaitTimeInMs?: number;
  /** Partitions one consumer processes at the same time (order stays per partition, so per key). Default 4. */
  partitionsConsumedConcurrently?: number;
  /**
   * Consumer session timeout (default 6 s, DEFAULT_SESSION_TIMEOUT_MS): a consumer silent for that long loses its
   * partitions. It bounds how long a killed replica's partitions wait before the group gives them to a live one,
   * and so how long a restarted service takes to rejoin its groups (DESIGN.md: at the head within 10 s).
   */
  sessionTimeoutMs?: number;
  /** Connection timeout for brokers (default 3 s). */
  connectionTimeoutMs?: number;
  /**
   * Broker addresses to reach through another address (`{"10.0.0.5:9092": "127.0.0.1:19092"}`): port forwards,
   * and the fault-injection proxy of the end-to-end tests. Brokers advertise their own address in metadata, so a
   * forward must cover those too. From env: KAFKA_CONNECT_VIA="host:port=host:port,...".
   */
  connectVia?: Record<string, string>;
  /**
   * Prefix of every consumer group id (KAFKA_GROUP_PREFIX): lets several deployments (sandbox and live, or two
   * test stacks) share one Kafka cluster without joining each other's groups.
   */
  groupPrefix?: string;
  /**
   * Prefix of every topic name on the wire (KAFKA_TOPIC_PREFIX); services keep using the plain names of
   * `Topics`. With groupPrefix, it keeps deployments (or test stacks) sharing one cluster fully apart.
   */
  topicPrefix?: string;
  /**
   * TLS and SASL (kafkajs `ssl` and `sasl`). Default: from process.env through kafkaSecurityFromEnv (KAFKA_SSL,
   * KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE, KAFKA_SSL_REJECT_UNAUTHORIZED,
   * KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD), so every Kafka client of the workspace
   * (services, the rebuild tool) honours them, and a bad combination throws KafkaConfigError from the constructor:
   * the service refuses to start. Pass `{}` for a plaintext client whatever the env says.
   */
  security?: KafkaSecurity;
}

/**
 * The consumers' default session timeout: short enough that a SIGKILLed replica's partitions move on within
 * seconds and a restarted one is at the head within 10 s (a clean stop leaves its groups at once); long enough
 * for a busy process to heartbeat (every second, and between the chunks of a batch). 6 s is also the least a
 * Kafka broker accepts by default (group.min.session.timeout.ms).
 */
export const DEFAULT_SESSION_TIMEOUT_MS = 6_000;

/** Parses KAFKA_CONNECT_VIA ("a:1=b:2,c:3=d:4"). */
export function parseConnectVia(value: string | undefined): Record<string, string> | undefined {
  if (!value) return undefined;
  const map: Record<string, string> = {};
  for (const pair of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [from, to] = pair.split('=');
    if (!from || !to || !/^[^:]+:\d+$/.test(from) || !/^[^:]+:\d+$/.test(to))
      throw new Error(`KAFKA_CONNECT_VIA: bad entry "${pair}" (want host:port=host:port)`);
    map[from] = to;
  }
  return map;
}

/**
 * Connects to `via`'s replacement of a broker address. With TLS the certificate is still checked against the
 * broker's own (advertised) name (SNI and hostname verification), not the forward's address.
 */
function socketFactory(via: Record<string, string>): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const target = via[`${host}:${port}`];
    const [h, p] = target ? [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))] : [host, port];
    const socket = ssl
      ? tls.connect({ host: h, port: p, ...(net.isIP(host) ? {} : { servername: host }), ...(typeof ssl === 'object' ? ssl : {}) }, onConnect)
      : net.connect({ host: h, port: p }, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  /** `cleanup.policy=compact`: the latest value per key survives, tombstones remove keys. */
  compacted?: boolean;
  /** `retention.ms=-1`: never deleted by age or size (a log consumers must be able to replay from its start). */
  keepForever?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The message's value as sent: its JSON text when the sender has it, else `value` serialised; null for a tombstone. */
function wireValue(m: OutgoingMessage): string | null {
  if (m.json !== undefined) return m.json;
  return m.value === null ? null : JSON.stringify(m.value);
}

function parseValue(value: Buffer | null): unknown {
  if (value === null) return null;
  const text = value.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    // Delivered as text: the consumer's validation parks it with the reason instead of failing the partition.
    return text;
  }
}

/**
 * Kafka through kafkajs. The producer is not idempotent (the librdkafka mock cluster refuses that) and topics
 * are auto-created on first use when the broker refuses the admin CreateTopics call: ordering per key comes
 * from the key (one partition per key), de-duplication from the consumers' revision checks.
 *
 * Consumers: a rejected handler is retried with backoff, in place, until it succeeds (the partition waits; other
 * partitions go on); offsets are committed only after the handler resolved. A consumer that kafkajs gives up on
 * (broker away for long) is recreated, so a subscription lives until it is closed.
 */
export class KafkaTransport implements EventTransport {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly subscriptions = new Set<Subscription>();
  private connected?: Promise<void>;
  private admin?: Admin;
  private closed = false;

  constructor(private readonly opts: KafkaTransportOptions) {
    // Before any connection exists: kafkajs 2.2.4 otherwise runs a 1 ms timer per broker connection (see the module).
    if (!fixKafkajsIdleTimer()) opts.logger.debug('kafka: the installed kafkajs schedules pending requests its own way; its idle-timer fix is not applied');
    let security = opts.security;
    if (!security) {
      const fromEnv = kafkaSecurityFromEnv(process.env);
      for (const warning of fromEnv.warnings) opts.logger.warn(`kafka: ${warning}`);
      security = fromEnv;
    }
    if (security.ssl || security.sasl) opts.logger.info(`kafka: ${describeKafkaSecurity(security)}`);
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      ...(security.ssl ? { ssl: security.ssl } : {}),
      ...(security.sasl ? { sasl: security.sasl } : {}),
      logLevel: logLevel.WARN,
      connectionTimeout: opts.connectionTimeoutMs ?? 3000,
      ...(opts.connectVia ? { socketFactory: socketFactory(opts.connectVia) } : {}),
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2000 },
      logCreator: () => (entry) => {
        const level = entry.level <= logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'debug';
        const { message, ...rest } = entry.log;
        opts.logger[level]({ kafka: entry.namespace, ...rest }, `kafka: ${message}`);
      },
    });
    this.producer = this.kafka.producer({
      allowAutoTopicCreation: true,
      idempotent: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /** The topic's name on the wire (with KAFKA_TOPIC_PREFIX). */
  private wire(topic: string): string {
    return `${this.opts.topicPrefix ?? ''}${topic}`;
  }

  async connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((err: unknown) => {
      this.connected = undefined;
      throw err;
    });
    await this.connected;
  }

  /**
   * Creates topics through the admin API when the broker offers it (real Kafka: partitions, compaction); a broker
   * that refuses CreateTopics (the mock cluster) auto-creates them on first use instead. Never throws for that.
   */
  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      await admin.createTopics({
        waitForLeaders: true,
        topics: specs.map((s) => ({
          topic: this.wire(s.topic),
          numPartitions: s.numPartitions ?? 4,
          configEntries: [
            ...(s.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : []),
            ...(s.keepForever
              ? [
                  { name: 'retention.ms', value: '-1' },
                  { name: 'retention.bytes', value: '-1' },
                ]
              : []),
          ],
        })),
      });
    } catch (err) {
      this.opts.logger.info(
        { err: err instanceof Error ? err.message : String(err), topics: specs.map((s) => s.topic) },
        'kafka: CreateTopics refused or failed; relying on topic auto-creation',
      );
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async publish(messages: OutgoingMessage[]): Promise<void> {
    if (this.closed) throw new Error('transport closed');
    if (messages.length === 0) return;
    await this.connect();
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const m of messages) {
      const list = byTopic.get(m.topic);
      if (list) list.push(m);
      else byTopic.set(m.topic, [m]);
    }
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic: this.wire(topic),
        messages: list.map((m) => ({ key: m.key, value: wireValue(m), ...(m.headers ? { headers: m.headers } : {}) })),
      })),
    });
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new Error('transport closed');
    const log = this.opts.logger.child({ topic: opts.topic, group: opts.group });
    let active = true;
    let consumer: Consumer | undefined;
    let restarting: Promise<void> | undefined;
    let assigned: readonly number[] = [];

    const deliver = async (messages: IncomingMessage[], heartbeat: () => Promise<void>) => {
      let delay = 100;
      const message = messages[0];
      for (;;) {
        try {
          if (opts.batchHandler) await opts.batchHandler(messages);
          else await opts.handler(message);
          return;
        } catch (err) {
          // Stop retrying on close: the offset stays uncommitted, the next consumer gets the message again.
          if (!active) throw err;
          log.warn(
            { key: message.key, partition: message.partition, offset: message.offset, err: err instanceof Error ? err.message : String(err), retryInMs: delay },
            'event handler failed; retrying',
          );
          await sleep(delay);
          delay = Math.min(delay * 2, 5000);
          await heartbeat().catch(() => undefined);
        }
      }
    };
    /** The value is decoded on first use: a consumer refuses a message too large to decode by its `raw` size. */
    const incoming = (partition: number, message: KafkaMessage, highWatermark?: string): IncomingMessage => {
      let decoded: { value: unknown } | undefined;
      const m: Partial<IncomingMessage> = {
        topic: opts.topic,
        partition,
        offset: message.offset,
        key: message.key?.toString('utf8') ?? '',
        raw: message.value,
        highWatermark,
      };
      const headers = textHeaders(message.headers);
      if (headers) m.headers = headers;
      Object.defineProperty(m, 'value', {
        enumerable: true,
        get: () => (decoded ??= { value: parseValue(message.value) }).value,
      });
      return m as IncomingMessage;
    };
    const maxBatch = opts.maxBatch ?? 100;

    const start = async (): Promise<Consumer> => {
      const c = this.kafka.consumer({
        groupId: `${this.opts.groupPrefix ?? ''}${kafkaGroupId(opts.group, opts.topic)}`,
        allowAutoTopicCreation: true,
        maxWaitTimeInMs: this.opts.maxWaitTimeInMs ?? 100,
        sessionTimeout: this.opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
        heartbeatInterval: 1000,
        retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 5000 },
      });
      // Which partitions this member got (replicas of a service share a group's partitions): metrics and logs.
      c.on(c.events.GROUP_JOIN, (event) => {
        assigned = [...(event.payload.memberAssignment[this.wire(opts.topic)] ?? [])].sort((a, b) => a - b);
        log.info({ partitions: assigned, leader: event.payload.isLeader }, 'kafka consumer joined its group');
      });
      c.on(c.events.CRASH, (event) => {
        if (event.payload.restart || !active) return;
        // kafkajs gave up (e.g. no broker for a long time): start a fresh consumer after a pause.
        log.warn({ err: event.payload.error.message }, 'kafka consumer crashed; recreating it');
        restarting ??= (async () => {
          await c.disconnect().catch(() => undefined);
          while (active) {
            await sleep(1000);
            try {
              consumer = await start();
              break;
            } catch (err) {
              log.warn({ err: err instanceof Error ? err.message : String(err) }, 'kafka consumer restart failed; retrying');
            }
          }
          restarting = undefined;
        })();
      });
      try {
        await c.connect();
        await c.subscribe({ topic: this.wire(opts.topic), fromBeginning: opts.fromBeginning ?? true });
        const common = {
          autoCommit: true,
          autoCommitInterval: 1000,
          partitionsConsumedConcurrently: this.opts.partitionsConsumedConcurrently ?? 4,
        };
        if (opts.batchHandler) {
          await c.run({
            ...common,
            eachBatchAutoResolve: false,
            eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
              for (let i = 0; i < batch.messages.length; i += maxBatch) {
                if (!isRunning() || isStale()) break;
                const chunk = batch.messages.slice(i, i + maxBatch);
                await deliver(
                  chunk.map((m) => incoming(batch.partition, m, batch.highWatermark)),
                  heartbeat,
                );
                resolveOffset(chunk[chunk.length - 1].offset);
                await commitOffsetsIfNecessary();
                await heartbeat();
              }
            },
          });
        } else {
          await c.run({
            ...common,
            eachMessage: async ({ partition, message, heartbeat }) => {
              await deliver([incoming(partition, message)], heartbeat);
            },
          });
        }
      } catch (err) {
        await c.disconnect().catch(() => undefined);
        throw err;
      }
      return c;
    };

    consumer = await start();
    const subscription: Subscription = {
      assignedPartitions: () => assigned,
      close: async () => {
        if (!active) return;
        active = false;
        this.subscriptions.delete(subscription);
        await restarting;
        await consumer?.disconnect().catch(() => undefined);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Low and high watermarks of every partition of `topic` (high = the offset the next message will get). */
  async topicOffsets(topic: string): Promise<{ partition: number; low: number; high: number }[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(this.wire(topic));
      return offsets.map((o) => ({ partition: o.partition, low: Number(o.low), high: Number(o.high) }));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async check(): Promise<void> {
    await this.withAdmin((admin) => admin.describeCluster());
  }

  async groupOffsets(group: string, topic: string): Promise<GroupPartitionOffsets[]> {
    const wire = this.wire(topic);
    const groupId = `${this.opts.groupPrefix ?? ''}${kafkaGroupId(group, topic)}`;
    const [ends, committed] = await this.withAdmin((admin) => Promise.all([admin.fetchTopicOffsets(wire), admin.fetchOffsets({ groupId, topics: [wire] })]));
    const byPartition = new Map((committed.find((t) => t.topic === wire)?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    return ends.map((o) => {
      const low = Number(o.low);
      const at = byPartition.get(o.partition);
      return { partition: o.partition, end: Number(o.high), committed: at === undefined || at < 0 ? low : Math.max(at, low) };
    });
  }

  /** Runs `work` with the transport's shared admin client (connected on first use, dropped when a call fails). */
  private async withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('transport closed');
    if (!this.admin) {
      const admin = this.kafka.admin();
      await admin.connect();
      this.admin = admin;
    }
    const admin = this.admin;
    try {
      return await work(admin);
    } catch (err) {
      if (this.admin === admin) this.admin = undefined;
      await admin.disconnect().catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.admin?.disconnect().catch(() => undefined);
    await this.producer.disconnect().catch(() => undefined);
  }
}

/**
 * The Kafka consumer group of one subscription: the service's group qualified by the topic (`platform` reading
 * `gis.gradings.v1` is group `platform.gis.gradings.v1`). A subscription is one (group, topic) pair, as in the
 * in-process bus; several kafkajs consumers sharing one group id but subscribing to different topics would keep
 * rebalancing ("received unsubscribed topics") and never settle.
 */
export function kafkaGroupId(group: string, topic: string): string {
  return `${group}.${topic}`;
}

/** Kafka headers as text (the trace context); undefined when the message has none. Array values: the first. */
function textHeaders(headers: KafkaMessage['headers']): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const one = Array.isArray(v) ? v[0] : v;
    if (one !== undefined && one !== null) out[k] = Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
