import type { Metric, Registry } from 'prom-client';
import { metricOf } from '@dtp/service-kit';

/** The kit's metricOf for the components that may run without a registry (tests): undefined then. */
export function metric<T extends Metric>(registry: Registry | undefined, name: string, make: (registers: Registry[]) => T): T | undefined {
  return registry ? metricOf(registry, name, make) : undefined;
}
