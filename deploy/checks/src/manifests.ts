import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { ensureKustomize, root } from './tools';

export const OVERLAYS = ['kind', 'sandbox', 'live'] as const;
export type Overlay = (typeof OVERLAYS)[number];
export const APPS = ['auth', 'platform', 'search', 'gis'] as const;
export type App = (typeof APPS)[number];

export const NAMESPACES: Record<Overlay, string> = { kind: 'dtp', sandbox: 'dtp-sandbox', live: 'dtp-live' };

export type Labels = Record<string, string>;

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  privileged?: boolean;
  seccompProfile?: { type: string };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: SecurityContext & { fsGroup?: number };
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  volumes?: { name: string; emptyDir?: { sizeLimit?: string }; configMap?: { name: string }; secret?: { secretName: string } }[];
}

export interface Selector {
  matchLabels?: Labels;
}

export interface NetworkPeer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface NetworkRule {
  to?: NetworkPeer[];
  from?: NetworkPeer[];
  ports?: { port?: number | string; protocol?: string }[];
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Record<string, string> };
  data?: Record<string, string>;
  type?: string;
  spec?: {
    replicas?: number;
    selector?: Selector;
    template?: { metadata?: { labels?: Labels; annotations?: Record<string, string> }; spec: PodSpec };
    // Service
    ports?: { name?: string; port: number; targetPort?: number | string }[];
    // NetworkPolicy
    podSelector?: Selector;
    policyTypes?: string[];
    ingress?: NetworkRule[];
    egress?: NetworkRule[];
    // Ingress
    ingressClassName?: string;
    rules?: {
      host: string;
      http: { paths: { path: string; pathType: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[] };
    }[];
    tls?: { hosts: string[]; secretName: string }[];
    // HPA / PDB
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    maxUnavailable?: number | string;
    minAvailable?: number | string;
    // Job
    backoffLimit?: number;
    ttlSecondsAfterFinished?: number;
    // CronJob
    schedule?: string;
    suspend?: boolean;
    concurrencyPolicy?: string;
    jobTemplate?: { metadata?: { labels?: Labels }; spec: NonNullable<K8sObject['spec']> };
  };
}

/**
 * The `literals` of one configMapGenerator of k8s/base/kustomization.yaml as KEY -> value, read from the file itself
 * (no kustomize): what every overlay starts from. The memory benchmark runs the services with `dtp-runtime`'s
 * NODE_OPTIONS; the overlay tests check that each rendered overlay still has the same value.
 */
export function baseGeneratorLiterals(name: string): Record<string, string> {
  const kustomization = parse(readFileSync(path.join(root, 'k8s', 'base', 'kustomization.yaml'), 'utf8')) as {
    configMapGenerator?: { name: string; literals?: string[] }[];
  };
  const generator = kustomization.configMapGenerator?.find((g) => g.name === name);
  if (!generator) throw new Error(`k8s/base/kustomization.yaml has no configMapGenerator ${name}`);
  return Object.fromEntries(
    (generator.literals ?? []).map((l) => {
      const at = l.indexOf('=');
      if (at <= 0) throw new Error(`configMapGenerator ${name}: literal ${JSON.stringify(l)} is not KEY=value`);
      return [l.slice(0, at), l.slice(at + 1)];
    }),
  );
}

const renders = new Map<Overlay, K8sObject[]>();

/**
 * The kind overlay reads its Secrets from files that deploy/kind-secrets.sh generates (git-ignored; nothing in the
 * repository opens anything). Rendered from a copy of k8s/ with throwaway values of its own, so a checkout's real
 * secrets (from deploy/kind-up.sh) are never read, and a checkout without them renders too.
 */
export function renderKind(): string {
  const copy = mkdtempSync(path.join(tmpdir(), 'dtp-k8s-'));
  try {
    const secrets = path.join(copy, 'k8s', 'overlays', 'kind', 'secrets');
    cpSync(path.join(root, 'k8s'), path.join(copy, 'k8s'), {
      recursive: true,
      filter: (src) => !src.startsWith(path.join(root, 'k8s', 'overlays', 'kind', 'secrets')),
    });
    const r = spawnSync('bash', [path.join(root, 'deploy', 'kind-secrets.sh'), secrets], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`deploy/kind-secrets.sh failed: ${(r.stderr ?? '').trim() || r.error}`);
    return ensureKustomize().render(path.join(copy, 'k8s', 'overlays', 'kind'));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** `kustomize build k8s/overlays/<overlay>`, parsed. Throws (the test fails) when kustomize is unavailable. */
export function render(overlay: Overlay): K8sObject[] {
  const hit = renders.get(overlay);
  if (hit) return hit;
  const text = overlay === 'kind' ? renderKind() : ensureKustomize().render(path.join(root, 'k8s', 'overlays', overlay));
  const docs = parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new Error(`rendered ${overlay} is not valid YAML: ${d.errors[0].message}`);
    return d.toJS() as K8sObject;
  });
  const objects = docs.filter((o) => o && typeof o === 'object');
  renders.set(overlay, objects);
  return objects;
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export function get(objects: K8sObject[], kind: string, name: string): K8sObject {
  const o = find(objects, kind, name);
  if (!o) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return o;
}

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'Job', 'DaemonSet', 'CronJob'];

/**
 * Everything that runs pods. A CronJob is given as a view whose `spec` is its job template's spec, so that
 * `spec.template` is its pod template like everyone else's.
 */
export function workloads(objects: K8sObject[]): K8sObject[] {
  return objects.filter((o) => WORKLOAD_KINDS.includes(o.kind)).map((o) => (o.kind === 'CronJob' ? { ...o, spec: o.spec!.jobTemplate!.spec } : o));
}

export function podLabels(workload: K8sObject): Labels {
  return workload.spec?.template?.metadata?.labels ?? {};
}

export function allContainers(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

export function selects(selector: Selector | undefined, labels: Labels): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

export function decode(secret: K8sObject, key: string): string | undefined {
  const v = secret.data?.[key];
  return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
}

export interface RequiredSecret {
  name: string;
  type?: string;
  keys: Record<string, string>;
}

/** The documented list of Secrets an overlay expects ops to create (k8s/overlays/<overlay>/required-secrets.yaml). */
export function requiredSecrets(overlay: Overlay): RequiredSecret[] {
  const file = path.join(root, 'k8s', 'overlays', overlay, 'required-secrets.yaml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return (parse(text) as { secrets: RequiredSecret[] }).secrets;
}

/**
 * The environment a container gets: envFrom ConfigMaps, then env entries. ConfigMap values come from the
 * render; Secret values from rendered Secrets, else from `secretValue` (placeholders for external Secrets); an
 * `optional` key only from a rendered Secret that has it (else unset, as in a cluster without it).
 * Throws on a reference to something that is neither rendered nor supplied.
 */
export function containerEnv(objects: K8sObject[], c: Container, secretValue: (name: string, key: string) => string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  const secret = (name: string, key: string, optional = false): string | undefined => {
    const rendered = find(objects, 'Secret', name);
    const v = rendered ? decode(rendered, key) : optional ? undefined : secretValue(name, key);
    if (v === undefined && !optional) throw new Error(`${c.name}: secret ${name} key ${key} is neither rendered nor documented`);
    return v;
  };
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, get(objects, 'ConfigMap', from.configMapRef.name).data ?? {});
    if (from.secretRef) {
      const s = get(objects, 'Secret', from.secretRef.name);
      for (const k of Object.keys(s.data ?? {})) env[k] = decode(s, k)!;
    }
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.configMapKeyRef) {
      const { name, key } = e.valueFrom.configMapKeyRef;
      const v = get(objects, 'ConfigMap', name).data?.[key];
      if (v === undefined) throw new Error(`${c.name}: ConfigMap ${name} has no key ${key}`);
      env[e.name] = v;
    } else if (e.valueFrom?.secretKeyRef) {
      const { name, key, optional } = e.valueFrom.secretKeyRef;
      const v = secret(name, key, optional);
      if (v !== undefined) env[e.name] = v;
    }
  }
  return env;
}

/** A generated ConfigMap/Secret by its name before kustomize's hash suffix (or a plain one by its name). */
export function generated(objects: K8sObject[], kind: string, base: string): K8sObject {
  const matches = objects.filter((o) => o.kind === kind && (o.metadata.name === base || new RegExp(`^${base}-[a-z0-9]{10}$`).test(o.metadata.name)));
  if (matches.length !== 1) throw new Error(`expected one ${kind} ${base}, found ${matches.length}`);
  return matches[0];
}
