import { UnitOfWork } from '@dtp/database';
import { validateEnvelope } from '@dtp/domain';
import type { IncomingMessage } from '../transport';
import { databaseAnswers, MessageApplier } from './applier';
import { RevisionClaims } from './claims';
import { errorText } from './errors';
import { ConsumerHealth } from './health';
import { inspectMessage } from './inspect';
import { ConsumerMetrics, registerConsumerGauges } from './metrics';
import { ParkedStore } from './parked-store';
import { ConsumerSpans } from './spans';
import type { ConsumeOutcome, ParkReason, RunConsumerOptions, RunningConsumer } from './types';

/**
 * Subscribes `handle` to `topic` as consumer group `group` and makes it idempotent, total and unblockable:
 * 1. inspects the message before anything decodes or validates it in depth (inspectMessage): bigger than
 *    maxMessageBytes, parked `too_large`; nested deeper than maxDepth (an iterative walk), parked `too_deep`; then
 *    validates it (envelope + payload contract of the topic); an invalid one is parked; an exception while doing
 *    any of that is parked `undecodable`;
 * 2. in ONE transaction: locks the key's row in `consumer_state` (RevisionClaims), skips the event when its
 *    revision is not newer (a duplicate or a stale redelivery: counted, not applied), else runs `handle` and stores
 *    the revision (MessageApplier; several messages of a partition in one transaction when batched);
 * 3. classifies any failure: ParkEventError and every error that is not a known temporary one are parked in
 *    `parked_events` (ParkedStore; metric `consumer_parked_total{reason}`, a warn log line) and the partition moves on;
 * 4. temporary failures (database outages, deadlocks, RetryEventError: isTransientError) are retried with backoff;
 *    after maxTransientAttempts attempts made while the database answered, parked `retries_exhausted`.
 * Gauges `consumer_lag_messages`, `consumer_stuck_partitions` and `consumer_degraded` feed readiness
 * (ConsumerHealth, ConsumerMetrics). The service's migrations must have created the tables (createConsumerTables).
 */
export async function runConsumer<T extends string>(opts: RunConsumerOptions<T>): Promise<RunningConsumer> {
  if (!opts.handle === !opts.handleMany) throw new Error('runConsumer: give exactly one of handle and handleMany');
  const stateName = opts.stateName ?? opts.group;
  const log = opts.logger.child({ consumer: stateName, topic: opts.topic });
  const labels = { group: stateName, topic: opts.topic };
  const metrics = new ConsumerMetrics(opts.registry, labels);
  const live: { subscription?: { assignedPartitions?(): readonly number[] } } = {};
  const health = new ConsumerHealth({
    stuckAfterFailures: opts.stuckAfterFailures ?? 3,
    lagThreshold: opts.lagThreshold ?? 1000,
    assignedPartitions: () => live.subscription?.assignedPartitions?.(),
  });
  const unregister = opts.registry ? registerConsumerGauges(opts.registry, { labels, health: () => health.snapshot() }) : () => undefined;
  let closed = false;

  const settle = (outcome: ConsumeOutcome, message: IncomingMessage, reason?: ParkReason) => {
    health.settle(outcome, message, reason);
    metrics.settled(outcome, reason);
    try {
      opts.onSettled?.(outcome, message);
    } catch (err) {
      log.error({ err: errorText(err) }, 'onSettled threw; ignored');
    }
  };

  const limits = { maxMessageBytes: opts.maxMessageBytes ?? 1024 * 1024, maxDepth: opts.maxDepth ?? 64, validate: opts.validate ?? validateEnvelope };
  const applier = new MessageApplier<T>({
    uow: opts.unitOfWork ?? new UnitOfWork(opts.dataSource),
    handler: opts,
    inspect: (message) => inspectMessage(message, limits),
    claims: new RevisionClaims(stateName),
    parked: new ParkedStore(stateName, opts.dataSource, log),
    health,
    spans: new ConsumerSpans(opts.topic, opts.group),
    settle,
    observe: (seconds, count) => metrics.observe(seconds, count),
    databaseAnswers: () => databaseAnswers(opts.dataSource),
    maxTransientAttempts: opts.maxTransientAttempts ?? 30,
    log,
    closing: () => closed,
  });

  const subscription = await opts.transport.subscribe({
    topic: opts.topic,
    group: opts.group,
    fromBeginning: opts.fromBeginning ?? true,
    handler: applier.message,
    batchHandler: opts.batch === false ? undefined : applier.batch,
    maxBatch: opts.maxBatch ?? 100,
    fetchWaitMs: opts.fetchWaitMs,
  });
  live.subscription = subscription;
  log.info({ group: opts.group }, 'consumer started');
  return {
    topic: opts.topic,
    group: opts.group,
    counts: health.counts,
    health: () => health.snapshot(),
    settled: () => health.settledOffsets(),
    close: async () => {
      closed = true;
      unregister();
      await subscription.close();
    },
  };
}
