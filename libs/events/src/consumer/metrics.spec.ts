import { Registry } from 'prom-client';
import { ConsumerMetrics, registerConsumerGauges } from './metrics';
import type { ConsumerHealthSnapshot } from './types';

/** A metric's samples; a histogram's carry the name of their series (`_count`, `_sum`, `_bucket`). */
const value = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)!.get()).values as Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;

describe('consumer metrics', () => {
  it('count applied, duplicate and parked messages per consumer, and share the metrics of a registry', async () => {
    const registry = new Registry();
    const a = new ConsumerMetrics(registry, { group: 'g', topic: 't' });
    const b = new ConsumerMetrics(registry, { group: 'h', topic: 't' });
    a.settled('applied');
    a.settled('applied');
    b.settled('duplicate');
    a.settled('parked', 'invalid');
    a.settled('tombstone');
    a.observe(0.002, 3);
    expect(await value(registry, 'consumer_applied_total')).toEqual([{ labels: { group: 'g', topic: 't' }, value: 2 }]);
    expect(await value(registry, 'consumer_duplicates_total')).toEqual([{ labels: { group: 'h', topic: 't' }, value: 1 }]);
    expect(await value(registry, 'consumer_parked_total')).toEqual([{ labels: { group: 'g', topic: 't', reason: 'invalid' }, value: 1 }]);
    const count = (await value(registry, 'consumer_apply_seconds')).find((v) => v.metricName === 'consumer_apply_seconds_count');
    expect(count?.value).toBe(3);
    // Without a registry nothing is counted, and nothing fails.
    new ConsumerMetrics(undefined, { group: 'g', topic: 't' }).settled('applied');
  });

  it("gauges read each registered consumer's health at scrape time, until it is taken off", async () => {
    const registry = new Registry();
    let snapshot: ConsumerHealthSnapshot = { lag: 3, stuckPartitions: 0, degraded: false, parked: {} };
    const off = registerConsumerGauges(registry, { labels: { group: 'g', topic: 't' }, health: () => snapshot });
    registerConsumerGauges(registry, {
      labels: { group: 'h', topic: 't' },
      health: () => ({ lag: 0, stuckPartitions: 1, degraded: true, parked: {}, assignedPartitions: [1] }),
    });
    expect(await value(registry, 'consumer_lag_messages')).toEqual([
      { labels: { group: 'g', topic: 't' }, value: 3 },
      { labels: { group: 'h', topic: 't' }, value: 0 },
    ]);
    snapshot = { ...snapshot, lag: 2000, degraded: true };
    expect((await value(registry, 'consumer_degraded')).map((v) => v.value)).toEqual([1, 1]);
    expect(await value(registry, 'consumer_assigned_partitions')).toEqual([{ labels: { group: 'h', topic: 't' }, value: 1 }]);
    off();
    expect(await value(registry, 'consumer_stuck_partitions')).toEqual([{ labels: { group: 'h', topic: 't' }, value: 1 }]);
  });
});
