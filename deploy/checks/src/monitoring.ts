/**
 * The monitoring manifests (k8s/base/monitoring): the PromQL of the PrometheusRule and of the Grafana dashboard,
 * and the metric names that PromQL uses, so the checks can hold them against what the services really expose.
 */
import { K8sObject } from './manifests';

/** Series that are not the services' own: Prometheus' scrape health and kube-state-metrics' pod readiness. */
export const EXTERNAL_METRICS = new Set(['up', 'kube_pod_status_ready']);

const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects (Grafana's `$variables` and `label_values(metric, label)` allowed).
 * Strings, label matchers, range and subquery brackets and grouping label lists are dropped first; what is left
 * that is neither a function (followed by `(`), a keyword nor part of a number is a metric name.
 */
export function metricNames(expr: string): string[] {
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  s = s.replace(/\blabel_values\s*\(([^,()]*(?:\([^()]*\))?[^,()]*),[^)]*\)/g, ' $1 ');
  let depth = 0;
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0) throw new Error(`unbalanced parentheses in ${expr}`);
  }
  if (depth !== 0) throw new Error(`unbalanced parentheses in ${expr}`);
  const names = new Set<string>();
  for (const m of s.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const before = s[m.index - 1] ?? ' ';
    if (/[0-9.]/.test(before)) continue; // 1e3, 5m
    if (
      s
        .slice(m.index + m[0].length)
        .trimStart()
        .startsWith('(')
    )
      continue;
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names].sort();
}

export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The rules of every PrometheusRule in a render. */
export function alertRules(objects: K8sObject[]): AlertRule[] {
  return objects
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((o) => ((o.spec as unknown as { groups: { name: string; rules: AlertRule[] }[] }).groups ?? []).flatMap((g) => g.rules));
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: { title: string; targets?: { expr: string }[] }[];
  templating?: { list: { name: string; type: string; query?: string | { query: string }; definition?: string }[] };
}

/** The Grafana dashboards the render ships (ConfigMaps labelled grafana_dashboard=1), parsed. */
export function dashboards(objects: K8sObject[]): Dashboard[] {
  return objects
    .filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1')
    .flatMap((o) => Object.values(o.data ?? {}).map((text) => JSON.parse(text) as Dashboard));
}

/** Every PromQL expression of a dashboard: panel targets and query variables. */
export function dashboardExpressions(d: Dashboard): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of d.panels) for (const t of p.targets ?? []) out.push({ where: `${d.uid}: ${p.title}`, expr: t.expr });
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    if (q) out.push({ where: `${d.uid}: $${v.name}`, expr: q });
  }
  return out;
}

/** Every metric name the monitoring of a render uses, with where. */
export function usedMetrics(objects: K8sObject[]): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const add = (where: string, expr: string) => {
    for (const n of metricNames(expr)) used.set(n, [...(used.get(n) ?? []), where]);
  };
  for (const r of alertRules(objects)) add(`PrometheusRule ${r.alert ?? r.record}`, r.expr);
  for (const d of dashboards(objects)) for (const { where, expr } of dashboardExpressions(d)) add(`dashboard ${where}`, expr);
  return used;
}

/**
 * The series names a Prometheus text exposition offers: every sample's name, and for each `# TYPE` the names its
 * type produces (a histogram's _bucket/_sum/_count, a summary's _sum/_count), so that a metric that has not been
 * observed yet still counts.
 */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      const [, name, kind] = type;
      names.add(name);
      if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (kind === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{\s]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}
