// Validates Kubernetes objects against the API's own schemas, offline: npm kubernetes-models (the OpenAPI schemas
// of Kubernetes 1.3x, as classes with validate()) and @kubernetes-models/prometheus-operator (PodMonitor,
// PrometheusRule, ...). Both packages are ESM only, so the deploy checks (Jest, CommonJS) run this file as a child
// process: a JSON array of objects on stdin, a JSON array of {kind, name, errors} on stdout, one entry per object
// that fails (an object of an apiVersion/kind with no schema fails too).
//
// One narrow allowance: kustomize writes a generated Secret's long base64 values wrapped at 70 characters (a YAML
// plain scalar over several lines, which the API server decodes with the line breaks ignored), while the schema's
// `byte` format wants one unbroken line. A value is unwrapped only when it is exactly that: lines of 70 characters
// but the last, which together are valid base64. Anything else is validated as it stands.
import { readFileSync } from 'node:fs';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function unwrapKustomizeBase64(value) {
  if (typeof value !== 'string') return value;
  const lines = value.replace(/\n$/, '').split(/\n| /);
  if (lines.length < 2) return value;
  if (!lines.slice(0, -1).every((l) => l.length === 70) || lines[lines.length - 1].length > 70) return value;
  const joined = lines.join('');
  return BASE64.test(joined) ? joined : value;
}

function modulePath(apiVersion) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${group}/${version}`;
  return `kubernetes-models/${group ? `${group}/` : ''}${version}`;
}

export async function validate(objects) {
  const failures = [];
  for (const o of objects) {
    const kind = o?.kind;
    const name = o?.metadata?.name;
    let mod;
    try {
      mod = await import(modulePath(String(o?.apiVersion)));
    } catch {
      failures.push({ kind, name, errors: [`no schema for apiVersion ${o?.apiVersion}`] });
      continue;
    }
    const Model = mod[kind];
    if (typeof Model !== 'function') {
      failures.push({ kind, name, errors: [`no schema for ${o?.apiVersion} ${kind}`] });
      continue;
    }
    let obj = o;
    if (kind === 'Secret' && o.data) obj = { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, unwrapKustomizeBase64(v)])) };
    try {
      new Model(obj).validate();
    } catch (err) {
      const details = Array.isArray(err?.errors)
        ? err.errors.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
        : [String(err?.message ?? err)];
      failures.push({ kind, name, errors: details });
    }
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const objects = JSON.parse(readFileSync(0, 'utf8'));
  process.stdout.write(`${JSON.stringify(await validate(objects))}\n`);
}
