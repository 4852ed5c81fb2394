/**
 * Every rendered overlay (kind, sandbox, live) is valid against the Kubernetes API's schemas and the
 * prometheus-operator CRDs' schemas (npm kubernetes-models and @kubernetes-models/prometheus-operator, offline):
 * what `kubectl apply --dry-run=server` would check on a cluster, short of admission webhooks.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { OVERLAYS, render, type K8sObject } from '../src/manifests';
import { root } from '../src/tools';

const script = path.join(root, 'deploy', 'checks', 'src', 'schemas.mjs');

function validate(objects: unknown[]): { kind: string; name: string; errors: string[] }[] {
  const r = spawnSync(process.execPath, [script], { input: JSON.stringify(objects), encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`deploy/checks/src/schemas.mjs failed: ${(r.stderr || String(r.error)).trim().split('\n').slice(-3).join(' ')}`);
  return JSON.parse(r.stdout) as { kind: string; name: string; errors: string[] }[];
}

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  it('renders only objects valid against the Kubernetes and prometheus-operator schemas', () => {
    const objects = render(overlay);
    expect(objects.length).toBeGreaterThan(20);
    expect(validate(objects)).toEqual([]);
  });
});

describe('the schema validation itself', () => {
  const deployment = () => structuredClone(render('kind').find((o) => o.kind === 'Deployment')!) as K8sObject & Record<string, unknown>;

  it('finds a wrong type, an unknown kind and a malformed Secret value', () => {
    const d = deployment();
    (d.spec as Record<string, unknown>).replicas = 'two';
    const rule = structuredClone(render('kind').find((o) => o.kind === 'PrometheusRule')!) as K8sObject & Record<string, unknown>;
    (rule.spec as Record<string, unknown>).groups = 'not a list';
    const failures = validate([
      d,
      rule,
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { KEY: 'not base64!' } },
    ]);
    expect(failures.map((f) => [f.kind, f.name])).toEqual([
      ['Deployment', d.metadata.name],
      ['PrometheusRule', rule.metadata.name],
      ['Widget', 'w'],
      ['Secret', 's'],
    ]);
    expect(failures[0].errors.join(' ')).toMatch(/replicas/);
  });

  it('accepts base64 wrapped the way kustomize wraps it (70 characters a line), and nothing looser', () => {
    const long = Buffer.from('x'.repeat(120)).toString('base64');
    const wrapped = long.match(/.{1,70}/g)!.join('\n');
    const badlyWrapped = long.match(/.{1,50}/g)!.join('\n');
    const secret = (value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { KEY: value } });
    expect(validate([secret(long), secret(wrapped)])).toEqual([]);
    expect(validate([secret(badlyWrapped)]).map((f) => f.name)).toEqual(['s']);
  });
});
