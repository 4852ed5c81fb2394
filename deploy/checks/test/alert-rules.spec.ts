/**
 * The PrometheusRule's alerts and the dashboard's queries, checked by Prometheus' own promtool (Debian's package
 * prometheus, installed by src/tools.ts when absent): `promtool check rules` parses every expression and template,
 * and `promtool test rules` evaluates the alerts over synthetic series shaped as the services expose them (the
 * names and labels build.spec.ts finds on the running services), so each alert is seen firing when it should and
 * staying quiet when it should not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { render } from '../src/manifests';
import { alertRules, dashboardExpressions, dashboards } from '../src/monitoring';
import { run } from '../src/processes';
import { ensurePromtool } from '../src/tools';

interface Group {
  name: string;
  rules: { alert?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[];
}

const groups = (): Group[] => {
  const rule = render('kind').find((o) => o.kind === 'PrometheusRule')!;
  return (rule.spec as unknown as { groups: Group[] }).groups;
};

let dir: string;
let promtool: string;
beforeAll(() => {
  promtool = ensurePromtool();
  dir = mkdtempSync(path.join(tmpdir(), 'dtp-promtool-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('promtool accepts every alert rule (expressions, durations, templates)', async () => {
  writeFileSync(path.join(dir, 'rules.yaml'), stringify({ groups: groups() }));
  const r = await run(promtool, ['check', 'rules', path.join(dir, 'rules.yaml')]);
  expect([r.code, r.output]).toEqual([0, expect.stringContaining(`SUCCESS: ${alertRules(render('kind')).length} rules found`)]);
});

it('(promtool does catch a broken expression)', async () => {
  writeFileSync(path.join(dir, 'broken.yaml'), stringify({ groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'sum(rate(x[5m])' }] }] }));
  const r = await run(promtool, ['check', 'rules', path.join(dir, 'broken.yaml')]);
  expect(r.code).toBe(1);
});

it("promtool parses every query of the dashboard (Grafana's variables given values)", async () => {
  const exprs = dashboards(render('kind')).flatMap((d) => dashboardExpressions(d));
  const rules = exprs.map((e, i) => ({
    record: `dashboard:query_${i}`,
    expr: e.expr
      .replace(/^label_values\((.*),\s*\w+\)$/, '$1')
      .replaceAll('$__rate_interval', '5m')
      .replaceAll('$namespace', 'dtp'),
  }));
  writeFileSync(path.join(dir, 'dashboard.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
  const r = await run(promtool, ['check', 'rules', path.join(dir, 'dashboard.yaml')]);
  expect([r.code, r.output]).toEqual([0, expect.stringContaining(`SUCCESS: ${exprs.length} rules found`)]);
});

describe('the alerts, evaluated over synthetic series', () => {
  const dtp = (labels: Record<string, string>) => {
    const all = { job: 'dtp', namespace: 'dtp', ...labels };
    return `{${Object.entries(all)
      .map(([k, v]) => `${k}="${v}"`)
      .join(', ')}}`;
  };
  const consumer = { service: 'search', group: 'search', topic: 'platform.diamonds.v1' };

  /** One promtool test case: series (name{labels} -> values), then alerts expected at a time (labels only). */
  interface Case {
    name: string;
    series: [string, string][];
    expect: { at: string; alert: string; alerts: Record<string, string>[] }[];
  }

  const cases: Case[] = [
    {
      name: 'consumer lag summed over the replicas, past 1000 for 10 minutes',
      series: [
        [`consumer_lag_messages${dtp({ ...consumer, pod: 'search-a' })}`, '600x30'],
        [`consumer_lag_messages${dtp({ ...consumer, pod: 'search-b' })}`, '600x30'],
        [`consumer_lag_messages${dtp({ service: 'gis', group: 'gis', topic: 'platform.diamonds.v1', pod: 'gis-a' })}`, '900x30'],
      ],
      expect: [
        { at: '5m', alert: 'DtpConsumerLagHigh', alerts: [] },
        { at: '15m', alert: 'DtpConsumerLagHigh', alerts: [{ severity: 'warning', namespace: 'dtp', ...consumer }] },
      ],
    },
    {
      name: 'a stuck partition',
      series: [[`consumer_stuck_partitions${dtp({ ...consumer, pod: 'search-a' })}`, '0 0 1x20']],
      expect: [
        { at: '4m', alert: 'DtpConsumerStuck', alerts: [] },
        { at: '10m', alert: 'DtpConsumerStuck', alerts: [{ severity: 'critical', namespace: 'dtp', ...consumer }] },
      ],
    },
    {
      name: 'a consumer degraded for 15 minutes',
      series: [[`consumer_degraded${dtp({ ...consumer, pod: 'search-a' })}`, '1x30']],
      expect: [
        { at: '10m', alert: 'DtpConsumerDegraded', alerts: [] },
        { at: '20m', alert: 'DtpConsumerDegraded', alerts: [{ severity: 'warning', namespace: 'dtp', ...consumer }] },
      ],
    },
    {
      name: 'a parked message, until 15 minutes have passed',
      series: [[`consumer_parked_total${dtp({ ...consumer, reason: 'invalid', pod: 'search-a' })}`, '0 0 0 0 0 1x40']],
      expect: [
        { at: '3m', alert: 'DtpMessagesParked', alerts: [] },
        { at: '8m', alert: 'DtpMessagesParked', alerts: [{ severity: 'warning', namespace: 'dtp', ...consumer, reason: 'invalid' }] },
        { at: '30m', alert: 'DtpMessagesParked', alerts: [] },
      ],
    },
    {
      name: 'an outbox backlog past 1000 for 10 minutes',
      series: [[`outbox_backlog${dtp({ service: 'platform', pod: 'platform-a' })}`, '5000x30']],
      expect: [
        { at: '5m', alert: 'DtpOutboxBacklog', alerts: [] },
        { at: '15m', alert: 'DtpOutboxBacklog', alerts: [{ severity: 'warning', namespace: 'dtp', service: 'platform' }] },
      ],
    },
    {
      name: 'the oldest unpublished event older than 5 minutes, for 5 minutes',
      series: [
        [`outbox_backlog_oldest_seconds${dtp({ service: 'platform', pod: 'platform-a' })}`, '0+60x30'],
        [`outbox_backlog_oldest_seconds${dtp({ service: 'gis', pod: 'gis-a' })}`, '0x30'],
      ],
      expect: [
        { at: '8m', alert: 'DtpOutboxBacklogOld', alerts: [] },
        { at: '12m', alert: 'DtpOutboxBacklogOld', alerts: [{ severity: 'warning', namespace: 'dtp', service: 'platform' }] },
      ],
    },
    {
      name: 'a replica that cannot reach the broker for 2 minutes',
      series: [
        [`events_broker_up${dtp({ service: 'platform', pod: 'platform-a' })}`, '1 1 0x20'],
        [`events_broker_up${dtp({ service: 'platform', pod: 'platform-b' })}`, '1x22'],
        [`events_broker_up${dtp({ service: 'search', pod: 'search-a' })}`, '1x22'],
      ],
      expect: [
        { at: '3m', alert: 'DtpEventBrokerUnreachable', alerts: [] },
        { at: '6m', alert: 'DtpEventBrokerUnreachable', alerts: [{ severity: 'warning', namespace: 'dtp', service: 'platform' }] },
      ],
    },
    {
      name: 'publish failures, a slow outbox and no relay leader',
      series: [
        [`outbox_publish_failures_total${dtp({ service: 'platform', pod: 'platform-a' })}`, '0+5x30'],
        [`outbox_publish_lag_seconds_bucket${dtp({ service: 'platform', pod: 'platform-a', le: '10' })}`, '0x30'],
        [`outbox_publish_lag_seconds_bucket${dtp({ service: 'platform', pod: 'platform-a', le: '60' })}`, '0+10x30'],
        [`outbox_publish_lag_seconds_bucket${dtp({ service: 'platform', pod: 'platform-a', le: '+Inf' })}`, '0+10x30'],
        [`outbox_relay_leader${dtp({ service: 'platform', pod: 'platform-a' })}`, '0x30'],
        [`outbox_relay_leader${dtp({ service: 'platform', pod: 'platform-b' })}`, '0x30'],
        [`outbox_relay_leader${dtp({ service: 'gis', pod: 'gis-a' })}`, '1x30'],
      ],
      expect: [
        { at: '20m', alert: 'DtpOutboxPublishFailing', alerts: [{ severity: 'warning', namespace: 'dtp', service: 'platform' }] },
        { at: '20m', alert: 'DtpOutboxPublishLagHigh', alerts: [{ severity: 'warning', namespace: 'dtp', service: 'platform' }] },
        { at: '20m', alert: 'DtpOutboxNoRelayLeader', alerts: [{ severity: 'critical', namespace: 'dtp', service: 'platform' }] },
      ],
    },
    {
      name: "5xx answers: 1 in 6 of platform's, 1 in 101 of search's",
      series: [
        [
          `http_request_duration_seconds_count${dtp({ service: 'platform', pod: 'platform-a', method: 'POST', route: '/diamonds/rough/create', status_code: '201' })}`,
          '0+500x30',
        ],
        [
          `http_request_duration_seconds_count${dtp({ service: 'platform', pod: 'platform-a', method: 'POST', route: '/diamonds/rough/create', status_code: '503' })}`,
          '0+100x30',
        ],
        [
          `http_request_duration_seconds_count${dtp({ service: 'search', pod: 'search-a', method: 'GET', route: '/v1/diamonds/:id', status_code: '200' })}`,
          '0+1000x30',
        ],
        [
          `http_request_duration_seconds_count${dtp({ service: 'search', pod: 'search-a', method: 'GET', route: '/v1/diamonds/:id', status_code: '500' })}`,
          '0+10x30',
        ],
      ],
      expect: [
        { at: '8m', alert: 'DtpHigh5xxRate', alerts: [] },
        { at: '20m', alert: 'DtpHigh5xxRate', alerts: [{ severity: 'critical', namespace: 'dtp', service: 'platform' }] },
      ],
    },
    {
      name: 'readiness: one pod of search not ready, then no ready pod of gis; a foreign pod is ignored',
      series: [
        [`up${dtp({ pod: 'search-a', app_kubernetes_io_name: 'search' })}`, '1x30'],
        [`up${dtp({ pod: 'search-b', app_kubernetes_io_name: 'search' })}`, '1x30'],
        [`up${dtp({ pod: 'gis-a', app_kubernetes_io_name: 'gis' })}`, '1x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="search-a", condition="true"}`, '0x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="search-a", condition="false"}`, '1x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="search-b", condition="true"}`, '1x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="search-b", condition="false"}`, '0x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="gis-a", condition="true"}`, '1 1 1 0x30'],
        [`kube_pod_status_ready{namespace="dtp", pod="gis-a", condition="false"}`, '0 0 0 1x30'],
        [`kube_pod_status_ready{namespace="other", pod="someone-else", condition="false"}`, '1x30'],
      ],
      expect: [
        { at: '5m', alert: 'DtpPodNotReady', alerts: [] },
        {
          at: '15m',
          alert: 'DtpPodNotReady',
          alerts: [
            { severity: 'warning', namespace: 'dtp', pod: 'gis-a' },
            { severity: 'warning', namespace: 'dtp', pod: 'search-a' },
          ],
        },
        { at: '2m', alert: 'DtpServiceUnavailable', alerts: [] },
        { at: '10m', alert: 'DtpServiceUnavailable', alerts: [{ severity: 'critical', namespace: 'dtp', app_kubernetes_io_name: 'gis' }] },
      ],
    },
    {
      name: 'a pod whose metrics port does not answer',
      series: [
        [`up${dtp({ pod: 'auth-a', app_kubernetes_io_name: 'auth' })}`, '1 1 0x20'],
        [`up${dtp({ pod: 'auth-b', app_kubernetes_io_name: 'auth' })}`, '1x20'],
      ],
      expect: [
        { at: '4m', alert: 'DtpMetricsDown', alerts: [] },
        { at: '10m', alert: 'DtpMetricsDown', alerts: [{ severity: 'warning', job: 'dtp', namespace: 'dtp', pod: 'auth-a', app_kubernetes_io_name: 'auth' }] },
      ],
    },
  ];

  it('covers every alert of the rule', () => {
    const tested = new Set(cases.flatMap((c) => c.expect.map((e) => e.alert)));
    expect([...tested].sort()).toEqual(
      alertRules(render('kind'))
        .map((r) => r.alert!)
        .sort(),
    );
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    // The rules as rendered, less their annotations (promtool compares annotations too; their templates are
    // checked above): this test is about when the alerts fire.
    const bare = groups().map((g) => ({ ...g, rules: g.rules.map((r) => ({ ...r, annotations: undefined })) }));
    const slug = name.replace(/\W+/g, '-').slice(0, 40);
    writeFileSync(path.join(dir, `${slug}-rules.yaml`), stringify({ groups: bare }));
    const test = {
      rule_files: [`${slug}-rules.yaml`],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: c.series.map(([series, values]) => ({ series, values })),
          alert_rule_test: c.expect.map((e) => ({ eval_time: e.at, alertname: e.alert, exp_alerts: e.alerts.map((labels) => ({ exp_labels: labels })) })),
        },
      ],
    };
    writeFileSync(path.join(dir, `${slug}-test.yaml`), stringify(test));
    const r = await run(promtool, ['test', 'rules', `${slug}-test.yaml`], process.env, dir);
    expect([r.code, r.output]).toEqual([0, expect.stringContaining('SUCCESS')]);
  });
});
