import type { Registry } from 'prom-client';

/**
 * The metric `name` of `registry`, made by `make` the first time (several relays, consumers or purgers of one process
 * share a registry, and prom-client refuses a second metric of the same name); undefined without a registry.
 */
export function metric<T>(registry: Registry | undefined, name: string, make: (registers: Registry[]) => T): T | undefined {
  if (!registry) return undefined;
  return (registry.getSingleMetric(name) as T | undefined) ?? make([registry]);
}
