/**
 * The Kafka wire-protocol peer of this test run (the kcat mock cluster started by the Jest global setup).
 * Throws, so the calling test FAILS (never skips), when the peer could not be started.
 */
export function kafkaTestBrokers(): string[] {
  const brokers = process.env.KAFKA_TEST_BROKERS;
  if (!brokers) {
    throw new Error(
      `no Kafka peer for this test run: ${process.env.KAFKA_TEST_ERROR ?? 'KAFKA_TEST_BROKERS is not set (run through jest with the workspace config)'}`,
    );
  }
  return brokers.split(',');
}
