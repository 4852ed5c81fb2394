import type { Logger } from 'pino';
import { InProcessTransport } from './in-process.transport';
import { EventTransport } from './transport';

/**
 * The transport for a service running as its own process: Kafka when KAFKA_BROKERS is set. Without it the
 * service gets a private in-process bus (useful only for a lone service; `npm start` shares one bus).
 */
export async function transportFromEnv(service: string, logger: Logger, env = process.env): Promise<EventTransport> {
  if (env.KAFKA_BROKERS) {
    const { KafkaTransport } = await import('./kafka.transport');
    const t = new KafkaTransport({ clientId: `dtp-${service}`, brokers: env.KAFKA_BROKERS.split(','), logger });
    await t.connect();
    return t;
  }
  logger.warn('KAFKA_BROKERS is not set: events stay inside this process');
  return new InProcessTransport((err, m) => logger.error({ err, topic: m.topic, key: m.key }, 'event handler failed'));
}
