import type { Logger } from 'pino';
import { Topics } from '@dtp/domain';
import { InProcessTransport } from './in-process.transport';
import { kafkaSecurityFromEnv } from './kafka-config';
import { KafkaTransport, KafkaTransportOptions, parseConnectVia, TopicSpec } from './kafka.transport';
import { EventTransport } from './transport';

/** Every topic of the platform; the diamonds topic is compacted (latest record per diamond, tombstones). */
export const TOPIC_SPECS: TopicSpec[] = Object.values(Topics).map((topic) => ({
  topic,
  numPartitions: 4,
  compacted: topic === Topics.PLATFORM_DIAMONDS || topic === Topics.AUTH_PARTICIPANTS,
}));

/**
 * Every Kafka client of the workspace (the services, `npm run search:rebuild`) reads the same variables:
 * KAFKA_BROKERS, KAFKA_MAX_WAIT_MS, KAFKA_SESSION_TIMEOUT_MS, KAFKA_CONNECT_VIA, the prefixes KAFKA_GROUP_PREFIX
 * and KAFKA_TOPIC_PREFIX (a tool that ignored them would read another deployment's topic), and TLS/SASL
 * (KAFKA_SSL*, KAFKA_SASL*; a bad combination names its variable). Needs KAFKA_BROKERS.
 */
export function kafkaOptionsFromEnv(clientId: string, logger: Logger, env: Record<string, string | undefined> = process.env): KafkaTransportOptions {
  if (!env.KAFKA_BROKERS) throw new Error('KAFKA_BROKERS is not set');
  const security = kafkaSecurityFromEnv(env);
  for (const warning of security.warnings) logger.warn(`kafka: ${warning}`);
  return {
    clientId,
    brokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()).filter(Boolean),
    logger,
    maxWaitTimeInMs: env.KAFKA_MAX_WAIT_MS ? Number(env.KAFKA_MAX_WAIT_MS) : undefined,
    sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS ? Number(env.KAFKA_SESSION_TIMEOUT_MS) : undefined,
    connectVia: parseConnectVia(env.KAFKA_CONNECT_VIA),
    groupPrefix: env.KAFKA_GROUP_PREFIX,
    topicPrefix: env.KAFKA_TOPIC_PREFIX,
    security,
  };
}

/**
 * The transport for a service running as its own process: Kafka when KAFKA_BROKERS is set (topics created when
 * the broker allows it, else auto-created). Without it the service gets a private in-process bus (useful only
 * for a lone service; `npm start` shares one bus).
 */
export async function transportFromEnv(service: string, logger: Logger, env = process.env): Promise<EventTransport> {
  if (env.KAFKA_BROKERS) {
    const t = new KafkaTransport(kafkaOptionsFromEnv(`dtp-${service}`, logger, env));
    await t.ensureTopics(TOPIC_SPECS);
    await t.connect();
    return t;
  }
  logger.warn('KAFKA_BROKERS is not set: events stay inside this process');
  return new InProcessTransport((err, m) => logger.error({ err, topic: m.topic, key: m.key }, 'event handler failed'));
}
