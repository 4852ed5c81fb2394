import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * One Prometheus registry per service (several services can share a process under `npm start`), with the
 * process metrics and an HTTP latency histogram labelled by route template.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;

  constructor(service: string, defaults = true) {
    this.registry.setDefaultLabels({ service });
    if (defaults) {
      collectDefaultMetrics({ register: this.registry });
      // Gauges named like counters (promtool: non-counter metrics should not have "_total" suffix); their
      // per-type gauges (nodejs_active_handles, nodejs_active_requests, nodejs_active_resources) stay: sum those.
      for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
        this.registry.removeSingleMetric(name);
    }
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }
}
