import net from 'node:net';
import tls from 'node:tls';
import { Admin, Consumer, ISocketFactory, Kafka, KafkaMessage, logLevel, Partitioners, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { describeKafkaSecurity, KafkaSecurity, kafkaSecurityFromEnv } from './kafka-config';
import { SubscribedRoundRobinAssigner } from './kafka-assigner';
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
  /** `<group>\0<topic>` -> the shared group id subscribeAll consumes it in (groupOffsets). */
  private readonly sharedGroupIds = new Map<string, string>();
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

  /** One topic in its own consumer group (`kafkaGroupId(group, topic)`): the rebuild tool, tests. */
  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const [subscription] = await this.consume(this.groupIdOf(opts.group, opts.topic), [opts]);
    return subscription;
  }

  /**
   * Several topics of one group in ONE kafkajs consumer, group id `<group>` (KAFKA_GROUP_PREFIX first): one fetch
   * per broker for all of them instead of one per topic, and one group membership (heartbeats, rebalances). With
   * the librdkafka mock, which answers a fetch only when KAFKA_MAX_WAIT_MS has passed, an idle consumer costs its
   * process a fetch every wait whatever it reads: a platform process (its deny-list included) makes 2 fetches a
   * wait instead of one per topic, 5.
   * The next fetch waits until every batch of the last one is applied, whatever its topic: a topic slow to apply
   * belongs in a consumer of its own (`subscribe`; EventRoute `ownConsumer`).
   * Where the group has no position yet, it goes on from where the per-topic groups of earlier versions got to
   * (`inheritedPositions`), so an upgrade does not apply the topics again from their start.
   */
  async subscribeAll(list: SubscribeOptions[]): Promise<Subscription[]> {
    if (list.length === 0) return [];
    const group = list[0].group;
    if (list.some((o) => o.group !== group)) throw new Error('subscribeAll: every topic must be of one group');
    if (new Set(list.map((o) => o.topic)).size !== list.length) throw new Error('subscribeAll: a topic given twice');
    if (list.some((o) => o.fetchWaitMs !== undefined)) throw new Error('subscribeAll: fetchWaitMs is for a consumer of its own (subscribe)');
    const groupId = `${this.opts.groupPrefix ?? ''}${group}`;
    const inherited = await this.inheritedPositions(groupId, list);
    for (const o of list) this.sharedGroupIds.set(`${group}\u0000${o.topic}`, groupId);
    return this.consume(groupId, list, inherited);
  }

  /** The Kafka group id that consumes `topic` for `group`: the shared one once subscribeAll took it, else per topic. */
  private groupIdOf(group: string, topic: string): string {
    return this.sharedGroupIds.get(`${group}\u0000${topic}`) ?? this.perTopicGroupId(group, topic);
  }

  /** The group id of a one-topic subscription, and of every subscription before subscribeAll: `kafkaGroupId`, prefixed. */
  private perTopicGroupId(group: string, topic: string): string {
    return `${this.opts.groupPrefix ?? ''}${kafkaGroupId(group, topic)}`;
  }

  /**
   * Where the per-topic groups of earlier versions (`kafkaGroupId(group, topic)`) got to, for each partition that
   * `groupId` has no position in yet: the consumer skips what lies before (it was applied under the old group) and
   * moves straight there. Read only: nothing is written to either group, so replicas starting together agree.
   */
  private async inheritedPositions(groupId: string, list: SubscribeOptions[]): Promise<Map<string, Map<number, number>>> {
    return this.withAdmin(async (admin) => {
      const inherited = new Map<string, Map<number, number>>();
      const own = await admin.fetchOffsets({ groupId, topics: list.map((o) => this.wire(o.topic)) });
      for (const o of list) {
        const wire = this.wire(o.topic);
        const from = this.perTopicGroupId(o.group, o.topic);
        // A deployment whose Kafka user may not read the old groups (ACLs written for this version) starts without them.
        const old = await admin.fetchOffsets({ groupId: from, topics: [wire] }).catch((err: unknown) => {
          this.opts.logger.warn(
            { group: from, err: err instanceof Error ? err.message : String(err) },
            'kafka: could not read the per-topic group; not going on from it',
          );
          return [];
        });
        const placed = new Set((own.find((t) => t.topic === wire)?.partitions ?? []).filter((p) => Number(p.offset) >= 0).map((p) => p.partition));
        const positions = new Map(
          (old[0]?.partitions ?? []).filter((p) => Number(p.offset) > 0 && !placed.has(p.partition)).map((p) => [p.partition, Number(p.offset)]),
        );
        if (positions.size === 0) continue;
        inherited.set(wire, positions);
        this.opts.logger.info(
          { group: groupId, topic: o.topic, from, partitions: Object.fromEntries(positions) },
          'kafka: going on from where the per-topic consumer group got to',
        );
      }
      return inherited;
    });
  }

  /** One kafkajs consumer in `groupId` for the topics of `list`, each delivered to its own handlers. */
  private async consume(groupId: string, list: SubscribeOptions[], inherited = new Map<string, Map<number, number>>()): Promise<Subscription[]> {
    if (this.closed) throw new Error('transport closed');
    const log = this.opts.logger.child({ group: groupId });
    const entries = new Map(list.map((opts) => [this.wire(opts.topic), { opts, active: true, assigned: [] as readonly number[] }]));
    type Entry = typeof entries extends Map<string, infer E> ? E : never;
    const anyActive = () => [...entries.values()].some((e) => e.active);
    let consumer: Consumer | undefined;
    let restarting: Promise<void> | undefined;

    const deliver = async (entry: Entry, messages: IncomingMessage[], heartbeat: () => Promise<void>) => {
      let delay = 100;
      const message = messages[0];
      for (;;) {
        try {
          if (entry.opts.batchHandler) await entry.opts.batchHandler(messages);
          else await entry.opts.handler(message);
          return;
        } catch (err) {
          // Stop retrying on close: the offset stays uncommitted, the next consumer gets the message again.
          if (!entry.active) throw err;
          log.warn(
            {
              topic: entry.opts.topic,
              key: message.key,
              partition: message.partition,
              offset: message.offset,
              err: err instanceof Error ? err.message : String(err),
              retryInMs: delay,
            },
            'event handler failed; retrying',
          );
          await sleep(delay);
          delay = Math.min(delay * 2, 5000);
          await heartbeat().catch(() => undefined);
        }
      }
    };
    /** The value is decoded on first use: a consumer refuses a message too large to decode by its `raw` size. */
    const incoming = (topic: string, partition: number, message: KafkaMessage, highWatermark?: string): IncomingMessage => {
      let decoded: { value: unknown } | undefined;
      const m: Partial<IncomingMessage> = {
        topic,
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

    const start = async (): Promise<Consumer> => {
      const c = this.kafka.consumer({
        groupId,
        allowAutoTopicCreation: true,
        // A one-topic subscription's fetchWaitMs (subscribeAll refuses one).
        maxWaitTimeInMs: Math.max(this.opts.maxWaitTimeInMs ?? 100, ...list.map((o) => o.fetchWaitMs ?? 0)),
        sessionTimeout: this.opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
        heartbeatInterval: 1000,
        retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 5000 },
        partitionAssigners: [SubscribedRoundRobinAssigner],
      });
      // Which partitions this member got (replicas of a service share a group's partitions): metrics and logs.
      c.on(c.events.GROUP_JOIN, (event) => {
        const partitions: Record<string, number[]> = {};
        for (const [wire, entry] of entries) {
          entry.assigned = [...(event.payload.memberAssignment[wire] ?? [])].sort((a, b) => a - b);
          partitions[entry.opts.topic] = [...entry.assigned];
        }
        log.info({ partitions, leader: event.payload.isLeader }, 'kafka consumer joined its group');
      });
      c.on(c.events.CRASH, (event) => {
        if (event.payload.restart || !anyActive()) return;
        // kafkajs gave up (e.g. no broker for a long time): start a fresh consumer after a pause.
        log.warn({ err: event.payload.error.message }, 'kafka consumer crashed; recreating it');
        restarting ??= (async () => {
          await c.disconnect().catch(() => undefined);
          while (anyActive()) {
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
        for (const [wire, entry] of entries) {
          if (entry.active) await c.subscribe({ topic: wire, fromBeginning: entry.opts.fromBeginning ?? true });
        }
        await c.run({
          autoCommit: true,
          autoCommitInterval: 1000,
          // As many partitions at once per topic as one consumer per topic had: a fetch's batches are applied side by side.
          partitionsConsumedConcurrently: (this.opts.partitionsConsumedConcurrently ?? 4) * entries.size,
          eachBatchAutoResolve: false,
          eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
            const entry = entries.get(batch.topic);
            if (!entry) return;
            if (!entry.active) {
              // Closed while the group's other topics go on: stop fetching it; its offsets stay where they were.
              c.pause([{ topic: batch.topic }]);
              return;
            }
            let messages = batch.messages;
            const skipBelow = inherited.get(batch.topic)?.get(batch.partition);
            if (skipBelow !== undefined) {
              // Applied under the per-topic group already: jump to where it got to.
              messages = messages.filter((m) => Number(m.offset) >= skipBelow);
              if (messages.length === 0) {
                c.seek({ topic: batch.topic, partition: batch.partition, offset: String(skipBelow) });
                return;
              }
              if (messages.length === batch.messages.length) inherited.get(batch.topic)!.delete(batch.partition);
            }
            const size = entry.opts.batchHandler ? (entry.opts.maxBatch ?? 100) : 1;
            for (let i = 0; i < messages.length; i += size) {
              if (!isRunning() || isStale() || !entry.active) break;
              const chunk = messages.slice(i, i + size);
              await deliver(
                entry,
                chunk.map((m) => incoming(entry.opts.topic, batch.partition, m, batch.highWatermark)),
                heartbeat,
              );
              resolveOffset(chunk[chunk.length - 1].offset);
              await commitOffsetsIfNecessary();
              await heartbeat();
            }
          },
        });
      } catch (err) {
        await c.disconnect().catch(() => undefined);
        throw err;
      }
      return c;
    };

    consumer = await start();
    return [...entries].map(([wire, entry]) => {
      const subscription: Subscription = {
        assignedPartitions: () => entry.assigned,
        close: async () => {
          if (!entry.active) return;
          entry.active = false;
          this.subscriptions.delete(subscription);
          if (anyActive()) {
            consumer?.pause([{ topic: wire }]);
            return;
          }
          await restarting;
          await consumer?.disconnect().catch(() => undefined);
        },
      };
      this.subscriptions.add(subscription);
      return subscription;
    });
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
    const groupId = this.groupIdOf(group, topic);
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
 * The Kafka consumer group of a one-topic subscription (`subscribe`): the group qualified by the topic (the search
 * rebuild reading `platform.diamonds.v1` as `search-rebuild-<time>` is group `search-rebuild-<time>.platform.diamonds.v1`).
 * A service's own consumers share the plain group id through `subscribeAll`; earlier versions used this per-topic
 * id for them too, and `subscribeAll` takes over those groups' positions.
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
