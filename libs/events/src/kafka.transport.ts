import { Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { EventTransport, OutgoingMessage, SubscribeOptions, Subscription } from './transport';

export interface KafkaTransportOptions {
  clientId: string;
  brokers: string[];
  logger: Logger;
  /** Lower in tests: how long a fetch waits for data before returning empty. */
  maxWaitTimeInMs?: number;
}

/**
 * Kafka through kafkajs. The producer is not idempotent (the librdkafka mock cluster refuses that) and topics
 * are auto-created on first use (no admin CreateTopics call): ordering per key comes from the key, de-duplication
 * from the consumers' revision checks.
 */
export class KafkaTransport implements EventTransport {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumers = new Set<Consumer>();
  private connected = false;

  constructor(private readonly opts: KafkaTransportOptions) {
    this.kafka = new Kafka({
      clientId: opts.clientId,
      brokers: opts.brokers,
      logLevel: logLevel.WARN,
      retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2000 },
      logCreator: () => (entry) => {
        const level = entry.level <= logLevel.ERROR ? 'error' : entry.level === logLevel.WARN ? 'warn' : 'debug';
        opts.logger[level]({ kafka: entry.namespace, ...entry.log }, `kafka: ${entry.log.message}`);
      },
    });
    this.producer = this.kafka.producer({ allowAutoTopicCreation: true, idempotent: false });
  }

  async connect(): Promise<void> {
    await this.producer.connect();
    this.connected = true;
  }

  async publish(messages: OutgoingMessage[]): Promise<void> {
    if (!this.connected) await this.connect();
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
    await this.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, list]) => ({
        topic,
        messages: list.map((m) => ({ key: m.key, value: m.value === null ? null : JSON.stringify(m.value) })),
      })),
    });
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: opts.group,
      allowAutoTopicCreation: true,
      maxWaitTimeInMs: this.opts.maxWaitTimeInMs ?? 500,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 200, maxRetryTime: 5000 },
    });
    await consumer.connect();
    await consumer.subscribe({ topic: opts.topic, fromBeginning: opts.fromBeginning ?? true });
    await consumer.run({
      autoCommit: true,
      eachMessage: async ({ topic, partition, message }) => {
        await opts.handler({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? '',
          value: message.value === null ? null : JSON.parse(message.value.toString()),
        });
      },
    });
    this.consumers.add(consumer);
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async check(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await admin.describeCluster();
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    await this.producer.disconnect();
  }
}
