import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { metric } from '../metrics';
import type { ConsumeOutcome, ConsumerHealthSnapshot, ParkReason } from './types';

/** The running consumers of each registry, for the gauges (collected at scrape time). */
interface GaugeSource {
  labels: { group: string; topic: string };
  health(): ConsumerHealthSnapshot;
}
const gaugeSources = new WeakMap<Registry, Set<GaugeSource>>();

/**
 * Adds a consumer to the gauges of `registry` (`consumer_lag_messages`, `consumer_stuck_partitions`,
 * `consumer_degraded`, `consumer_assigned_partitions`; one series per group and topic, read from `health` at
 * scrape time). Returns what takes it off again.
 */
export function registerConsumerGauges(registry: Registry, source: GaugeSource): () => void {
  let sources = gaugeSources.get(registry);
  if (!sources) {
    sources = new Set();
    gaugeSources.set(registry, sources);
  }
  sources.add(source);
  const labelNames = ['group', 'topic'] as const;
  const gauge = (name: string, help: string, value: (h: ConsumerHealthSnapshot) => number | undefined) =>
    metric(
      registry,
      name,
      (registers) =>
        new Gauge({
          name,
          help,
          labelNames,
          registers,
          collect(this: Gauge<'group' | 'topic'>) {
            this.reset();
            for (const s of gaugeSources.get(registry) ?? []) {
              const v = value(s.health());
              if (v !== undefined) this.set(s.labels, v);
            }
          },
        }),
    );
  gauge('consumer_lag_messages', 'Messages behind the end of the partitions, as of their last fetch', (h) => h.lag);
  gauge('consumer_stuck_partitions', 'Partitions whose next message keeps failing', (h) => h.stuckPartitions);
  gauge('consumer_degraded', '1 while the consumer is stuck or lagging past its threshold', (h) => (h.degraded ? 1 : 0));
  gauge('consumer_assigned_partitions', 'Partitions of the topic this replica holds in its consumer group (Kafka)', (h) => h.assignedPartitions?.length);
  return () => sources.delete(source);
}

/**
 * A consumer's counters and histogram in the service's registry (`consumer_applied_total`,
 * `consumer_duplicates_total`, `consumer_parked_total{reason}`, `consumer_apply_seconds`), labelled with its state
 * name and topic; without a registry, nothing is counted.
 */
export class ConsumerMetrics {
  private readonly applied?: Counter<'group' | 'topic'>;
  private readonly duplicates?: Counter<'group' | 'topic'>;
  private readonly parked?: Counter<'group' | 'topic' | 'reason'>;
  private readonly duration?: Histogram<'group' | 'topic'>;

  constructor(
    registry: Registry | undefined,
    private readonly labels: { group: string; topic: string },
  ) {
    const labelNames = ['group', 'topic'] as const;
    this.applied = metric(
      registry,
      'consumer_applied_total',
      (registers) => new Counter({ name: 'consumer_applied_total', help: 'Events applied by consumers', labelNames, registers }),
    );
    this.duplicates = metric(
      registry,
      'consumer_duplicates_total',
      (registers) => new Counter({ name: 'consumer_duplicates_total', help: 'Events skipped because their revision was not newer', labelNames, registers }),
    );
    this.parked = metric(
      registry,
      'consumer_parked_total',
      (registers) =>
        new Counter({
          name: 'consumer_parked_total',
          help: 'Events parked because they could not be applied, by reason (too_large, too_deep, invalid, undecodable, refused, handler_error, retries_exhausted)',
          labelNames: ['group', 'topic', 'reason'] as const,
          registers,
        }),
    );
    this.duration = metric(
      registry,
      'consumer_apply_seconds',
      (registers) =>
        new Histogram({
          name: 'consumer_apply_seconds',
          help: 'Time to settle one consumed message',
          labelNames,
          buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
          registers,
        }),
    );
  }

  settled(outcome: ConsumeOutcome, reason?: ParkReason): void {
    if (outcome === 'applied') this.applied?.inc(this.labels);
    else if (outcome === 'duplicate') this.duplicates?.inc(this.labels);
    else if (outcome === 'parked' && reason) this.parked?.inc({ ...this.labels, reason });
  }

  /** `count` messages settled in `seconds` each. */
  observe(seconds: number, count = 1): void {
    for (let i = 0; i < count; i += 1) this.duration?.observe(this.labels, seconds);
  }
}
