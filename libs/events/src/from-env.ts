import type { Logger } from 'pino';
import { Topics } from '@dtp/domain';
import { InProcessTransport } from './in-process.transport';
import { KafkaConfigError, kafkaSecurityFromEnv } from './kafka-config';
import { KafkaTransport, KafkaTransportOptions, parseConnectVia, TopicSpec } from './kafka.transport';
import { EventTransport } from './transport';

/**
 * Every topic of the platform. The diamonds and participants topics are compacted (latest record per key,
 * tombstones), and so are the share links. The custody log is kept whole, forever: every checkpoint event carries
 * entries no later one repeats (one key, so compaction would keep only the last), and a new search replays it from
 * the start to rebuild its tree.
 */
export const TOPIC_SPECS: TopicSpec[] = Object.values(Topics).map((topic) => ({
  topic,
  numPartitions: 4,
  compacted: topic === Topics.PLATFORM_DIAMONDS || topic === Topics.AUTH_PARTICIPANTS || topic === Topics.PLATFORM_SHARES,
  keepForever: topic === Topics.PLATFORM_CUSTODY,
}));

/**
 * Every Kafka client of the workspace (the services, `npm run search:rebuild`) reads the same variables:
 * KAFKA_BROKERS, KAFKA_MAX_WAIT_MS, KAFKA_SESSION_TIMEOUT_MS, KAFKA_CONNECT_VIA, the prefixes KAFKA_GROUP_PREFIX
 * and KAFKA_TOPIC_PREFIX (a tool that ignored them would read another deployment's topic), and TLS/SASL
 * (KAFKA_SSL*, KAFKA_SASL*; a bad combination names its variable). Needs KAFKA_BROKERS.
 */
export function kafkaOptionsFromEnv(clientId: string, logger: Logger, env: Record<string, string | undefined> = process.env): KafkaTransportOptions {
  const problems: string[] = [];
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) problems.push('KAFKA_BROKERS: required, a comma-separated list of host:port');
  for (const b of brokers) {
    const port = /^[^\s:/]+:(\d{1,5})$/.exec(b)?.[1];
    if (port === undefined || Number(port) < 1 || Number(port) > 65535) problems.push(`KAFKA_BROKERS: "${b.slice(0, 100)}" is not host:port`);
  }
  const whole = (name: string, min: number, max: number): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`${name}: a whole number of milliseconds from ${min} to ${max} (got "${v.slice(0, 40)}")`);
      return undefined;
    }
    return Number(v);
  };
  const maxWaitTimeInMs = whole('KAFKA_MAX_WAIT_MS', 0, 60_000);
  const sessionTimeoutMs = whole('KAFKA_SESSION_TIMEOUT_MS', 1000, 3_600_000);
  let connectVia: Record<string, string> | undefined;
  try {
    connectVia = parseConnectVia(env.KAFKA_CONNECT_VIA);
  } catch (err) {
    problems.push((err as Error).message);
  }
  for (const name of ['KAFKA_GROUP_PREFIX', 'KAFKA_TOPIC_PREFIX']) {
    const v = env[name];
    if (v && !/^[A-Za-z0-9._-]{1,100}$/.test(v)) problems.push(`${name}: letters, digits, ".", "_" and "-" only, at most 100 (got "${v.slice(0, 40)}")`);
  }
  let security: ReturnType<typeof kafkaSecurityFromEnv> | undefined;
  try {
    security = kafkaSecurityFromEnv(env);
  } catch (err) {
    if (err instanceof KafkaConfigError) problems.push(...err.problems);
    else throw err;
  }
  if (problems.length > 0 || !security) throw new KafkaConfigError(problems);
  for (const warning of security.warnings) logger.warn(`kafka: ${warning}`);
  return {
    clientId,
    brokers,
    logger,
    maxWaitTimeInMs,
    sessionTimeoutMs,
    connectVia,
    groupPrefix: env.KAFKA_GROUP_PREFIX || undefined,
    topicPrefix: env.KAFKA_TOPIC_PREFIX || undefined,
    security,
  };
}

/**
 * The transport for a service running as its own process: Kafka (KAFKA_BROKERS and the other KAFKA_* variables,
 * validated: a bad value names its variable and the service does not start; topics created when the broker
 * allows it, else auto-created). A private in-process bus only when asked for with EVENT_TRANSPORT=in-process: a
 * service alone on it exchanges events with no other service, which a missing KAFKA_BROKERS must not do silently
 * (`npm start` shares one in-process bus among the four services and does not come here).
 */
export async function transportFromEnv(service: string, logger: Logger, env = process.env): Promise<EventTransport> {
  const kind = env.EVENT_TRANSPORT || 'kafka';
  if (kind !== 'kafka' && kind !== 'in-process')
    throw new KafkaConfigError([`EVENT_TRANSPORT: "kafka" (default) or "in-process" (got "${kind.slice(0, 40)}")`]);
  if (kind === 'in-process' && env.KAFKA_BROKERS) throw new KafkaConfigError(['EVENT_TRANSPORT=in-process and KAFKA_BROKERS are both set: choose one']);
  if (kind === 'kafka' && !env.KAFKA_BROKERS) {
    throw new KafkaConfigError([
      'KAFKA_BROKERS: required. A service on its own exchanges events with the others through Kafka; to run it alone ' +
        'with a private in-process bus (its events reach no other service), set EVENT_TRANSPORT=in-process',
    ]);
  }
  if (kind === 'kafka') {
    const t = new KafkaTransport(kafkaOptionsFromEnv(`dtp-${service}`, logger, env));
    await t.ensureTopics(TOPIC_SPECS);
    await t.connect();
    return t;
  }
  logger.warn('EVENT_TRANSPORT=in-process: events stay inside this process');
  return new InProcessTransport((err, m) => logger.error({ err, topic: m.topic, key: m.key }, 'event handler failed'));
}
