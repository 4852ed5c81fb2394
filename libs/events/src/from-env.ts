import type { Logger } from 'pino';
import { Topics } from '@dtp/domain';
import { InProcessTransport } from './in-process.transport';
import { kafkaSecurityFromEnv } from './kafka-config';
import { KafkaTransport, parseConnectVia, TopicSpec } from './kafka.transport';
import { EventTransport } from './transport';

/** Every topic of the platform; the diamonds topic is compacted (latest record per diamond, tombstones). */
export const TOPIC_SPECS: TopicSpec[] = Object.values(Topics).map((topic) => ({
  topic,
  numPartitions: 4,
  compacted: topic === Topics.PLATFORM_DIAMONDS || topic === Topics.AUTH_PARTICIPANTS,
}));

/**
 * The transport for a service running as its own process: Kafka when KAFKA_BROKERS is set (topics created when
 * the broker allows it, else auto-created). Without it the service gets a private in-process bus (useful only
 * for a lone service; `npm start` shares one bus).
 */
export async function transportFromEnv(service: string, logger: Logger, env = process.env): Promise<EventTransport> {
  if (env.KAFKA_BROKERS) {
    // TLS and SASL from the same env as the rest (KAFKA_SSL*, KAFKA_SASL*; a bad combination names its variable).
    const security = kafkaSecurityFromEnv(env);
    for (const warning of security.warnings) logger.warn(`kafka: ${warning}`);
    const t = new KafkaTransport({
      clientId: `dtp-${service}`,
      brokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
      logger,
      maxWaitTimeInMs: env.KAFKA_MAX_WAIT_MS ? Number(env.KAFKA_MAX_WAIT_MS) : undefined,
      sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS ? Number(env.KAFKA_SESSION_TIMEOUT_MS) : undefined,
      connectVia: parseConnectVia(env.KAFKA_CONNECT_VIA),
      groupPrefix: env.KAFKA_GROUP_PREFIX,
      topicPrefix: env.KAFKA_TOPIC_PREFIX,
      security,
    });
    await t.ensureTopics(TOPIC_SPECS);
    await t.connect();
    return t;
  }
  logger.warn('KAFKA_BROKERS is not set: events stay inside this process');
  return new InProcessTransport((err, m) => logger.error({ err, topic: m.topic, key: m.key }, 'event handler failed'));
}
