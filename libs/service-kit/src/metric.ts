import { Counter, CounterConfiguration, Gauge, GaugeConfiguration, Histogram, HistogramConfiguration, Metric, Registry } from 'prom-client';

/**
 * The metric `name` of `registry`, made by `make` the first time. Several instances of one component in a process
 * (relays, consumers, caches of several Nest applications of a test) share a registry, and prom-client refuses a
 * second metric of the same name: every metric of the project is made through this, never with `new` alone.
 */
export function metricOf<T extends Metric>(registry: Registry, name: string, make: (registers: Registry[]) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make([registry]);
}

/** A counter of `registry`, made on first use (metricOf). */
export function counterOf<L extends string = string>(registry: Registry, config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
  return metricOf(registry, config.name, (registers) => new Counter<L>({ ...config, registers }));
}

/** A gauge of `registry`, made on first use (metricOf); a `collect` function is the first maker's. */
export function gaugeOf<L extends string = string>(registry: Registry, config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  return metricOf(registry, config.name, (registers) => new Gauge<L>({ ...config, registers }));
}

/** A histogram of `registry`, made on first use (metricOf). */
export function histogramOf<L extends string = string>(registry: Registry, config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
  return metricOf(registry, config.name, (registers) => new Histogram<L>({ ...config, registers }));
}
