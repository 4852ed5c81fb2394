import type { Registry } from 'prom-client';
import type { ComponentReport, ComponentReporter } from './readiness';

/**
 * The event consumers of a service, as their metrics describe them. `runConsumer` (@dtp/events) keeps these
 * gauges on the registry it is given (the service's `ctx.metrics.registry`), per `{group, topic}`:
 * - `consumer_lag_messages`: messages behind the end of the partitions (as of the last fetch);
 * - `consumer_stuck_partitions`: partitions whose next message has failed again and again;
 * - `consumer_degraded`: 1 while stuck or lagging past its threshold;
 * and the counter `consumer_parked_total{group, topic, reason}`.
 * Reading them here keeps the kit free of any dependency on the events library.
 */
export interface ConsumerHealth {
  group: string;
  topic: string;
  lag: number;
  stuck_partitions: number;
  parked: number;
  degraded: boolean;
}

type Sample = { value: number; labels: Record<string, string | number | undefined> };

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return [];
  return ((await metric.get()).values ?? []) as Sample[];
}

/** One entry per (group, topic) that has consumer gauges on `registry`. */
export async function consumerHealth(registry: Registry): Promise<ConsumerHealth[]> {
  const byKey = new Map<string, ConsumerHealth>();
  const entry = (labels: Sample['labels']): ConsumerHealth | undefined => {
    const group = String(labels.group ?? '');
    const topic = String(labels.topic ?? '');
    return byKey.get(`${group}\u0000${topic}`);
  };
  for (const s of await samples(registry, 'consumer_degraded')) {
    const group = String(s.labels.group ?? '');
    const topic = String(s.labels.topic ?? '');
    byKey.set(`${group}\u0000${topic}`, { group, topic, lag: 0, stuck_partitions: 0, parked: 0, degraded: s.value > 0 });
  }
  for (const s of await samples(registry, 'consumer_lag_messages')) {
    const e = entry(s.labels);
    if (e) e.lag = s.value;
  }
  for (const s of await samples(registry, 'consumer_stuck_partitions')) {
    const e = entry(s.labels);
    if (e) e.stuck_partitions = s.value;
  }
  for (const s of await samples(registry, 'consumer_parked_total')) {
    const e = entry(s.labels);
    if (e) e.parked += s.value;
  }
  return [...byKey.values()];
}

/**
 * The `events` component of `/health/ready`: degraded while a consumer is stuck (the same message failing
 * repeatedly) or lagging past its threshold, with the lag and the parked count; the consumers are listed under
 * `details.events` either way. Services without consumers report nothing.
 */
export function eventsReporter(registry: Registry): ComponentReporter {
  return async (): Promise<ComponentReport | undefined> => {
    const consumers = await consumerHealth(registry);
    if (consumers.length === 0) return undefined;
    const lag = consumers.reduce((s, c) => s + c.lag, 0);
    const parked = consumers.reduce((s, c) => s + c.parked, 0);
    const bad = consumers.filter((c) => c.degraded);
    const degraded =
      bad.length === 0
        ? undefined
        : bad
            .map(
              (c) =>
                `${c.group} on ${c.topic} ${c.stuck_partitions > 0 ? `stuck (${c.stuck_partitions} partition${c.stuck_partitions > 1 ? 's' : ''})` : 'lagging'}, lag ${c.lag}, parked ${c.parked}`,
            )
            .join('; ');
    return { degraded, detail: { lag, parked, consumers } };
  };
}
