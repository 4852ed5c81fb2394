import pino from 'pino';
import { InProcessTransport, KafkaConfigError, kafkaOptionsFromEnv, transportFromEnv } from '../src';

const logger = pino({ level: 'silent' });

/** The KAFKA_* variables every Kafka client reads, validated at start-up (issue 16). */
describe('Kafka configuration from the environment', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      kafkaOptionsFromEnv('test', logger, env);
      return [];
    } catch (err) {
      if (err instanceof KafkaConfigError) return err.problems;
      throw err;
    }
  };

  it('reads brokers, timeouts, forwards and prefixes', () => {
    const o = kafkaOptionsFromEnv('dtp-test', logger, {
      KAFKA_BROKERS: 'k1:9092, k2.example.com:19092',
      KAFKA_MAX_WAIT_MS: '20',
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      KAFKA_CONNECT_VIA: 'k1:9092=127.0.0.1:1234',
      KAFKA_GROUP_PREFIX: 'sandbox.',
      KAFKA_TOPIC_PREFIX: 'sandbox.',
    });
    expect(o).toMatchObject({
      clientId: 'dtp-test',
      brokers: ['k1:9092', 'k2.example.com:19092'],
      maxWaitTimeInMs: 20,
      sessionTimeoutMs: 6000,
      connectVia: { 'k1:9092': '127.0.0.1:1234' },
      groupPrefix: 'sandbox.',
      topicPrefix: 'sandbox.',
    });
  });

  it('names every bad variable at once', () => {
    expect(
      problems({
        KAFKA_BROKERS: 'k1:9092,k2,k3:99999',
        KAFKA_MAX_WAIT_MS: 'fast',
        KAFKA_SESSION_TIMEOUT_MS: '10',
        KAFKA_CONNECT_VIA: 'nonsense',
        KAFKA_TOPIC_PREFIX: 'a b',
      }),
    ).toEqual([
      'KAFKA_BROKERS: "k2" is not host:port',
      'KAFKA_BROKERS: "k3:99999" is not host:port',
      'KAFKA_MAX_WAIT_MS: a whole number of milliseconds from 0 to 60000 (got "fast")',
      'KAFKA_SESSION_TIMEOUT_MS: a whole number of milliseconds from 1000 to 3600000 (got "10")',
      'KAFKA_CONNECT_VIA: bad entry "nonsense" (want host:port=host:port)',
      'KAFKA_TOPIC_PREFIX: letters, digits, ".", "_" and "-" only, at most 100 (got "a b")',
    ]);
    expect(problems({})).toEqual(['KAFKA_BROKERS: required, a comma-separated list of host:port']);
    // TLS/SASL problems come in the same list
    expect(problems({ KAFKA_BROKERS: 'k:1', KAFKA_SASL_MECHANISM: 'plain' }).join('\n')).toMatch(/KAFKA_SASL_USERNAME/);
  });

  it('a service on its own refuses to start without KAFKA_BROKERS, unless EVENT_TRANSPORT=in-process says so', async () => {
    await expect(transportFromEnv('search', logger, {})).rejects.toThrow(/KAFKA_BROKERS: required\. .*set EVENT_TRANSPORT=in-process/);
    const t = await transportFromEnv('search', logger, { EVENT_TRANSPORT: 'in-process' });
    expect(t).toBeInstanceOf(InProcessTransport);
    await t.close();
    await expect(transportFromEnv('search', logger, { EVENT_TRANSPORT: 'in-process', KAFKA_BROKERS: 'k:1' })).rejects.toThrow(/both set/);
    await expect(transportFromEnv('search', logger, { EVENT_TRANSPORT: 'rabbit' })).rejects.toThrow(/EVENT_TRANSPORT: "kafka" \(default\) or "in-process"/);
  });
});
