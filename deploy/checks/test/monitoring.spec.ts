/**
 * Monitoring in every overlay: the PodMonitor scrapes exactly the four services on their `metrics` port, the
 * PrometheusRule alerts on consumer lag, parked messages, outbox backlog, 5xx rate and readiness, and a Grafana
 * dashboard shows the same. That each metric name used here is really exposed is checked against the running
 * services in build.spec.ts; here, that the expressions are well formed and select what the PodMonitor scrapes.
 */
import { APPS, get, K8sObject, Labels, OVERLAYS, podLabels, render, selects, workloads } from '../src/manifests';
import { alertRules, dashboardExpressions, dashboards, EXTERNAL_METRICS, metricNames, usedMetrics } from '../src/monitoring';

describe('metricNames (the PromQL reader the metric checks rely on)', () => {
  it('finds the metrics, not functions, labels, keywords, durations, numbers or Grafana variables', () => {
    expect(
      metricNames('sum by (namespace, service) (rate(http_request_duration_seconds_count{job="dtp", status_code=~"5.."}[5m])) / sum(rate(x_total[5m])) > 0.05'),
    ).toEqual(['http_request_duration_seconds_count', 'x_total']);
    expect(metricNames('max by (namespace, pod) (kube_pod_status_ready{condition="false"}) == 1 and on (namespace, pod) up{job="dtp"}')).toEqual([
      'kube_pod_status_ready',
      'up',
    ]);
    expect(metricNames('histogram_quantile(0.99, sum by (service, le) (rate(a_bucket{namespace="$namespace"}[$__rate_interval]))) > 1e3 offset 5m')).toEqual([
      'a_bucket',
    ]);
    expect(metricNames('label_values(up{job="dtp"}, namespace)')).toEqual(['up']);
    expect(metricNames('up * on (namespace, pod) group_left () max by (namespace, pod) (b)')).toEqual(['b', 'up']);
    expect(() => metricNames('sum(rate(x[5m])')).toThrow(/unbalanced/);
  });
});

describe.each(OVERLAYS)('overlay %s: monitoring', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(overlay);
  });

  it('has a PodMonitor that scrapes exactly the four services, on the port and path they serve /metrics on', () => {
    const monitors = objects.filter((o) => o.kind === 'PodMonitor');
    expect(monitors.map((m) => m.apiVersion)).toEqual(['monitoring.coreos.com/v1']);
    const spec = monitors[0].spec as unknown as {
      selector: { matchLabels: Labels };
      namespaceSelector?: unknown;
      podTargetLabels: string[];
      podMetricsEndpoints: { port: string; path: string; relabelings: { targetLabel: string; replacement: string }[] }[];
    };
    // Its own namespace only (no namespaceSelector), and only the servers' pods among everything that runs.
    expect(spec.namespaceSelector).toBeUndefined();
    const scraped = workloads(objects).filter((w) => selects(spec.selector, podLabels(w)));
    expect(scraped.map((w) => `${w.kind}/${w.metadata.name}`).sort()).toEqual(APPS.map((a) => `Deployment/${a}`).sort());
    const [endpoint] = spec.podMetricsEndpoints;
    expect(spec.podMetricsEndpoints).toHaveLength(1);
    for (const app of APPS) {
      const d = get(objects, 'Deployment', app);
      const c = d.spec!.template!.spec.containers.find((x) => x.name === app)!;
      const port = c.ports!.find((p) => p.name === endpoint.port);
      expect([app, port?.containerPort]).toEqual([app, Number(d.spec!.template!.metadata!.annotations!['prometheus.io/port'])]);
      expect(endpoint.path).toBe(d.spec!.template!.metadata!.annotations!['prometheus.io/path']);
      // The labels it copies onto the series exist on the pods.
      for (const l of spec.podTargetLabels) expect([app, l, podLabels(d)[l]]).toEqual([app, l, expect.any(String)]);
    }
    // The job label every rule and panel selects on.
    expect(endpoint.relabelings).toContainEqual(expect.objectContaining({ targetLabel: 'job', replacement: 'dtp' }));
  });

  it('alerts on consumer lag, stuck consumers, parked messages, outbox backlog, 5xx rate and readiness', () => {
    const rules = alertRules(objects);
    const alerts = rules.filter((r) => r.alert);
    expect(new Set(alerts.map((r) => r.alert)).size).toBe(alerts.length);
    const using = (metric: string) => alerts.filter((r) => metricNames(r.expr).includes(metric)).map((r) => r.alert);
    expect(using('consumer_lag_messages')).not.toEqual([]);
    expect(using('consumer_stuck_partitions')).not.toEqual([]);
    expect(using('consumer_parked_total')).not.toEqual([]);
    expect(using('outbox_backlog')).not.toEqual([]);
    expect(using('kube_pod_status_ready')).not.toEqual([]);
    const fiveXx = alerts.filter((r) => metricNames(r.expr).includes('http_request_duration_seconds_count') && /status_code=~"5\.\."/.test(r.expr));
    expect(fiveXx).not.toEqual([]);
    for (const r of alerts) {
      expect([r.alert, r.labels?.severity]).toEqual([r.alert, expect.stringMatching(/^(warning|critical)$/)]);
      expect([r.alert, typeof r.annotations?.summary, typeof r.annotations?.description]).toEqual([r.alert, 'string', 'string']);
      if (r.for) expect([r.alert, r.for]).toEqual([r.alert, expect.stringMatching(/^\d+[smh]$/)]);
      // Every selector of the services' own series is scoped to what the PodMonitor scrapes.
      for (const m of metricNames(r.expr).filter((n) => !EXTERNAL_METRICS.has(n))) {
        expect([r.alert, m, new RegExp(`${m}\\{[^}]*job="dtp"`).test(r.expr)]).toEqual([r.alert, m, true]);
      }
    }
  });

  it('ships a Grafana dashboard (sidecar label) whose panels cover the same, per namespace', () => {
    const [dashboard, ...more] = dashboards(objects);
    expect(more).toEqual([]);
    expect(dashboard.uid).toBe('dtp-overview');
    const exprs = dashboardExpressions(dashboard);
    const covered = new Set(exprs.flatMap((e) => metricNames(e.expr)));
    for (const m of [
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_bucket',
      'consumer_lag_messages',
      'consumer_parked_total',
      'outbox_backlog',
      'kube_pod_status_ready',
    ]) {
      expect([m, covered.has(m)]).toEqual([m, true]);
    }
    for (const { where, expr } of exprs.filter((e) => !e.where.endsWith('$namespace'))) {
      for (const m of metricNames(expr).filter((n) => !EXTERNAL_METRICS.has(n))) {
        expect([where, m, new RegExp(`${m}\\{[^}]*job="dtp", namespace="\\$namespace"`).test(expr)]).toEqual([where, m, true]);
      }
    }
  });

  it('uses the same metric names in every overlay (the monitoring lives in base)', () => {
    expect([...usedMetrics(objects).keys()].sort()).toEqual([...usedMetrics(render('kind')).keys()].sort());
  });

  it('lets only the monitoring namespace reach the metrics port that the PodMonitor scrapes', () => {
    const policy = get(objects, 'NetworkPolicy', 'allow-metrics-scrape');
    for (const app of APPS) expect(selects(policy.spec!.podSelector, podLabels(get(objects, 'Deployment', app)))).toBe(true);
    expect(policy.spec!.ingress).toEqual([
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'metrics', protocol: 'TCP' }] },
    ]);
  });
});
