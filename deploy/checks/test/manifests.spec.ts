/**
 * Every overlay renders with kustomize, and what it renders is walked: probes, resources, security, references,
 * images, each service's env against its own config validation, public addresses, network policies,
 * autoscaling, migrations. kustomize is found or installed by src/tools.ts; without it these tests fail.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { blobStoreSettings } from '@dtp/blob-store';
import { BaseServiceConfig, HttpSettings, loadConfig } from '@dtp/service-kit';
import { AuthConfig } from '../../../apps/auth/src/config';
import { GisConfig } from '../../../apps/gis/src/config';
import { PlatformConfig } from '../../../apps/platform/src/config';
import { SearchConfig } from '../../../apps/search/src/config';
import { parseDockerfile } from '../src/dockerfile';
import {
  allContainers,
  baseGeneratorLiterals,
  App,
  APPS,
  Container,
  containerEnv,
  decode,
  find,
  generated,
  get,
  K8sObject,
  Labels,
  NAMESPACES,
  NetworkRule,
  Overlay,
  OVERLAYS,
  podLabels,
  render,
  requiredSecrets,
  selects,
  workloads,
} from '../src/manifests';
import { ensureKustomize, root } from '../src/tools';

const CONFIG_CLASSES: Record<App, new () => object> = { auth: AuthConfig, platform: PlatformConfig, search: SearchConfig, gis: GisConfig };
const PORTS: Record<App, number> = { auth: 3001, platform: 3002, search: 3003, gis: 3004 };
/** The public address each service answers for, and the dtp-public key that holds it. */
const PUBLIC_KEY: Record<App, string> = { auth: 'AUTH_ISSUER', platform: 'PLATFORM_AUDIENCE', search: 'SEARCH_AUDIENCE', gis: 'GIS_AUDIENCE' };
/** What each service's pods must be able to reach (DNS always). */
const NEEDS: Record<App, Dependency[]> = {
  auth: ['postgres', 'kafka'],
  platform: ['postgres', 'kafka', 'object-store', 'auth'],
  search: ['postgres', 'kafka', 'object-store', 'auth'],
  gis: ['postgres', 'kafka', 'object-store', 'auth'],
};
type Dependency = 'postgres' | 'kafka' | 'object-store' | 'auth';
const DEPENDENCY_PORTS: Record<Overlay, Record<Dependency, number>> = {
  kind: { postgres: 5432, kafka: 9092, 'object-store': 9000, auth: 3001 },
  sandbox: { postgres: 5432, kafka: 9092, 'object-store': 443, auth: 3001 },
  live: { postgres: 5432, kafka: 9092, 'object-store': 443, auth: 3001 },
};
/** In kind, the workload serving each dependency. */
const KIND_SERVERS: Record<Dependency, string> = { postgres: 'postgres', kafka: 'kafka', 'object-store': 'minio', auth: 'auth' };

/** Random per run: production refuses every admin token written in the repository (apps/auth/src/config.ts). */
const PLACEHOLDER_ADMIN_TOKEN = randomBytes(24).toString('base64url');

/** A custody signing key (private Ed25519 JWK with kid) made per run, as ops would put in dtp-custody-signing-key. */
const PLACEHOLDER_CUSTODY_KEY = JSON.stringify({ ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: 'placeholder-custody' });

/** Stand-ins for the external Secrets of sandbox/live, valid for the services' config validation. */
function placeholder(secret: string, key: string): string | undefined {
  const values: Record<string, string> = {
    DATABASE_URL: `postgres://${secret.replace(/-secrets$/, '')}:placeholder@db.internal.example.com:5432/dtp_${secret.replace(/-secrets$/, '')}?sslmode=require`,
    AUTH_ADMIN_TOKEN: PLACEHOLDER_ADMIN_TOKEN,
    SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    S3_ACCESS_KEY_ID: 'placeholder-access-key',
    S3_SECRET_ACCESS_KEY: 'placeholder-secret-key',
    CUSTODY_SIGNING_KEY: PLACEHOLDER_CUSTODY_KEY,
  };
  return values[key];
}

function secretSource(overlay: Overlay) {
  const documented = requiredSecrets(overlay);
  return (name: string, key: string): string | undefined => {
    const entry = documented.find((s) => s.name === name);
    if (!entry || !(key in entry.keys)) return undefined;
    return placeholder(name, key);
  };
}

const appOf = (o: K8sObject): App | undefined => {
  const n = podLabels(o)['app.kubernetes.io/name'] ?? o.metadata.labels?.['app.kubernetes.io/name'];
  return (APPS as readonly string[]).includes(n ?? '') ? (n as App) : undefined;
};

function dockerTargets(): string[] {
  return parseDockerfile().stages.map((s) => s.name);
}

test('kustomize is available (found or installed), v4 or newer', () => {
  const k = ensureKustomize();
  expect(Number(/\d+/.exec(k.version)![0])).toBeGreaterThanOrEqual(4);
});

describe('containerEnv: secret references', () => {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  const rendered: K8sObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'rendered' }, data: { KEY: b64('from-render') } };
  const ref = (name: string, secret: string, key: string, optional?: boolean) => ({ name, valueFrom: { secretKeyRef: { name: secret, key, optional } } });
  const container = (env: Container['env']): Container => ({ name: 'c', image: 'i', env });
  const external = (name: string, key: string) => (name === 'external' ? `supplied:${key}` : undefined);

  it('takes a key from a rendered Secret, else from the supplied external value', () => {
    const env = containerEnv([rendered], container([ref('A', 'rendered', 'KEY'), ref('B', 'external', 'OTHER')]), external);
    expect(env).toEqual({ A: 'from-render', B: 'supplied:OTHER' });
  });

  it('leaves an optional key unset unless a rendered Secret has it, as Kubernetes does', () => {
    const env = containerEnv(
      [rendered],
      container([ref('A', 'rendered', 'KEY', true), ref('B', 'rendered', 'MISSING', true), ref('C', 'external', 'OTHER', true)]),
      external,
    );
    expect(env).toEqual({ A: 'from-render' });
  });

  it('refuses a required key that is neither rendered nor supplied', () => {
    expect(() => containerEnv([rendered], container([ref('A', 'rendered', 'MISSING')]), external)).toThrow(
      'c: secret rendered key MISSING is neither rendered nor documented',
    );
    expect(() => containerEnv([], container([ref('A', 'nowhere', 'KEY')]), external)).toThrow('c: secret nowhere key KEY is neither rendered nor documented');
  });
});

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  let objects: K8sObject[];
  let deployments: Record<App, K8sObject>;
  beforeAll(() => {
    objects = render(overlay);
    deployments = Object.fromEntries(APPS.map((a) => [a, get(objects, 'Deployment', a)])) as Record<App, K8sObject>;
  });

  const mainContainer = (app: App): Container => deployments[app].spec!.template!.spec.containers.find((c) => c.name === app)!;

  it('renders into its own namespace, which enforces the restricted Pod Security Standard', () => {
    const ns = NAMESPACES[overlay];
    const namespace = get(objects, 'Namespace', ns);
    expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of objects.filter((x) => x.kind !== 'Namespace'))
      expect([o.kind, o.metadata.name, o.metadata.namespace]).toEqual([o.kind, o.metadata.name, ns]);
  });

  it('has for each service a Deployment, Service, PodDisruptionBudget and NetworkPolicy', () => {
    for (const app of APPS) {
      const svc = get(objects, 'Service', app);
      expect(selects(svc.spec!.selector ? { matchLabels: (svc.spec as { selector: Labels }).selector } : undefined, podLabels(deployments[app]))).toBe(true);
      expect(svc.spec!.ports![0]).toMatchObject({ name: 'http', port: 80, targetPort: 'http' });
      const pdb = get(objects, 'PodDisruptionBudget', app);
      expect(selects(pdb.spec!.selector, podLabels(deployments[app]))).toBe(true);
      expect(pdb.spec!.maxUnavailable ?? pdb.spec!.minAvailable).toBeDefined();
      get(objects, 'NetworkPolicy', app);
    }
  });

  it('probes readiness on /health/ready and liveness on /health/live, on the port the service listens on', () => {
    for (const app of APPS) {
      const c = mainContainer(app);
      const http = c.ports!.find((p) => p.name === 'http')!;
      expect(http.containerPort).toBe(PORTS[app]);
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(c.startupProbe?.httpGet?.path).toBe('/health/live');
      const env = containerEnv(objects, c, secretSource(overlay));
      expect(Number(env.PORT)).toBe(PORTS[app]);
    }
  });

  it('sets CPU and memory requests and limits on every container', () => {
    for (const w of workloads(objects)) {
      for (const c of allContainers(w.spec!.template!.spec)) {
        const where = `${w.kind}/${w.metadata.name}/${c.name}`;
        expect([where, Object.keys(c.resources?.requests ?? {}).sort()]).toEqual([where, ['cpu', 'memory']]);
        expect([where, Object.keys(c.resources?.limits ?? {}).sort()]).toEqual([where, ['cpu', 'memory']]);
      }
    }
  });

  it("gives every service the base's NODE_OPTIONS (the memory benchmark runs with them), which pin both heap generations, and every Node container a heap under its memory limit", () => {
    const nodeOptions = baseGeneratorLiterals('dtp-runtime').NODE_OPTIONS;
    const flagMiB = (options: string, flag: string) => Number(new RegExp(`--${flag}=(\\d+)`).exec(options)?.[1]);
    // V8's heap limit: the old generation plus the young one, three semi-spaces' worth.
    const heapMiB = (options: string) => flagMiB(options, 'max-old-space-size') + 3 * flagMiB(options, 'max-semi-space-size');
    // Both pinned, so V8 sizes nothing from the container's memory limit (a young generation of 1 MiB semi-spaces
    // under 512Mi) and the benchmark, run without that limit, gets the same heap.
    expect(flagMiB(nodeOptions, 'max-old-space-size')).toBeGreaterThan(0);
    expect(flagMiB(nodeOptions, 'max-semi-space-size')).toBeGreaterThan(0);
    expect(heapMiB(nodeOptions)).toBe(408);
    for (const app of APPS) expect([app, containerEnv(objects, mainContainer(app), () => 'external').NODE_OPTIONS]).toEqual([app, nodeOptions]);
    let checked = 0;
    for (const w of workloads(objects)) {
      for (const c of allContainers(w.spec!.template!.spec)) {
        const options = containerEnv(objects, c, () => 'external').NODE_OPTIONS;
        if (options === undefined) continue;
        const where = `${w.kind}/${w.metadata.name}/${c.name}`;
        const limit = String(c.resources?.limits?.memory);
        expect([where, limit]).toEqual([where, expect.stringMatching(/^\d+Mi$/)]);
        expect([where, heapMiB(options) < parseInt(limit, 10)]).toEqual([where, true]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(APPS.length); // the init containers (migrations) too
  });

  it('runs every pod non-root, without privilege escalation or capabilities, with the runtime seccomp profile', () => {
    for (const w of workloads(objects)) {
      const pod = w.spec!.template!.spec;
      expect([w.metadata.name, pod.securityContext?.runAsNonRoot]).toEqual([w.metadata.name, true]);
      expect([w.metadata.name, pod.securityContext?.seccompProfile?.type]).toEqual([w.metadata.name, 'RuntimeDefault']);
      expect([w.metadata.name, pod.securityContext?.runAsUser]).not.toEqual([w.metadata.name, 0]);
      expect([w.metadata.name, pod.automountServiceAccountToken]).toEqual([w.metadata.name, false]);
      for (const c of allContainers(pod)) {
        const where = `${w.metadata.name}/${c.name}`;
        expect([where, c.securityContext?.allowPrivilegeEscalation]).toEqual([where, false]);
        expect([where, c.securityContext?.capabilities?.drop]).toEqual([where, ['ALL']]);
        expect([where, c.securityContext?.capabilities?.add]).toEqual([where, undefined]);
        expect([where, c.securityContext?.privileged]).not.toEqual([where, true]);
      }
    }
  });

  it('gives the services a read-only root filesystem with an emptyDir at /tmp', () => {
    for (const w of workloads(objects).filter((x) => appOf(x))) {
      const pod = w.spec!.template!.spec;
      for (const c of allContainers(pod)) {
        expect([w.metadata.name, c.name, c.securityContext?.readOnlyRootFilesystem]).toEqual([w.metadata.name, c.name, true]);
      }
      for (const c of pod.containers) {
        const mount = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect([w.metadata.name, Boolean(mount)]).toEqual([w.metadata.name, true]);
        expect(pod.volumes?.find((v) => v.name === mount!.name)?.emptyDir).toBeDefined();
      }
    }
  });

  it('gives each pod more termination grace than the drain time (SHUTDOWN_DRAIN_MS) plus time to finish requests', () => {
    for (const app of APPS) {
      const env = containerEnv(objects, mainContainer(app), secretSource(overlay));
      const drainMs = Number(env.SHUTDOWN_DRAIN_MS ?? 0);
      expect(drainMs).toBeGreaterThan(0);
      expect(deployments[app].spec!.template!.spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThanOrEqual(drainMs + 10_000);
    }
  });

  it('references only ConfigMap and Secret keys that exist (or, for external Secrets, are documented), and documents nothing unused', () => {
    const documented = requiredSecrets(overlay);
    const used = new Set<string>();
    const check = (kind: 'ConfigMap' | 'Secret', name: string, key?: string, optional = false) => {
      const rendered = find(objects, kind, name);
      if (rendered) {
        // An optional key (a previous encryption key, set only while changing it) may be absent.
        if (key !== undefined && !optional) expect([kind, name, key, key in (rendered.data ?? {})]).toEqual([kind, name, key, true]);
        return;
      }
      if (kind === 'ConfigMap') throw new Error(`ConfigMap ${name} is referenced but not rendered`);
      const entry = documented.find((s) => s.name === name);
      expect([name, key, Boolean(entry && (key === undefined || key in entry.keys))]).toEqual([name, key, true]);
      used.add(key === undefined ? name : `${name}/${key}`);
    };
    for (const w of workloads(objects)) {
      const pod = w.spec!.template!.spec;
      for (const c of allContainers(pod)) {
        for (const f of c.envFrom ?? []) {
          if (f.configMapRef) check('ConfigMap', f.configMapRef.name);
          if (f.secretRef) check('Secret', f.secretRef.name);
        }
        for (const e of c.env ?? []) {
          if (e.valueFrom?.configMapKeyRef) check('ConfigMap', e.valueFrom.configMapKeyRef.name, e.valueFrom.configMapKeyRef.key);
          if (e.valueFrom?.secretKeyRef) check('Secret', e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key, e.valueFrom.secretKeyRef.optional);
        }
      }
      for (const v of pod.volumes ?? []) {
        if (v.configMap) check('ConfigMap', v.configMap.name);
        if (v.secret) check('Secret', v.secret.secretName);
      }
    }
    for (const ing of objects.filter((o) => o.kind === 'Ingress')) for (const t of ing.spec!.tls ?? []) check('Secret', t.secretName);
    // ingress-nginx's client CA list for mutual TLS (`namespace/name`).
    for (const ing of objects.filter((o) => o.kind === 'Ingress')) {
      const caSecret = ing.metadata.annotations?.['nginx.ingress.kubernetes.io/auth-tls-secret'];
      if (caSecret) check('Secret', caSecret.split('/').pop()!, 'ca.crt');
    }
    const listed = documented.flatMap((s) => (s.type === 'kubernetes.io/tls' ? [s.name] : Object.keys(s.keys).map((k) => `${s.name}/${k}`)));
    expect(listed.sort()).toEqual([...used].sort());
    if (overlay !== 'kind') expect(listed.length).toBeGreaterThan(0);
  });

  it('runs only images the build produces (the service of the workload, tagged with the release), and pins every other image', () => {
    const targets = dockerTargets();
    const release = generated(objects, 'ConfigMap', 'dtp-release').data!.RELEASE;
    expect(release).toMatch(/^[\w][\w.-]{0,127}$/);
    for (const w of workloads(objects)) {
      for (const c of allContainers(w.spec!.template!.spec)) {
        const m = /^(?:(.+)\/)?dtp\/([a-z]+):([^:@]+)$/.exec(c.image);
        const where = `${w.metadata.name}/${c.name}: ${c.image}`;
        if (m) {
          expect([where, targets.includes(m[2])]).toEqual([where, true]);
          const app = appOf(w);
          if (app) expect([where, m[2]]).toEqual([where, app]);
          expect([where, m[3]]).not.toEqual([where, 'latest']);
          // One release value per overlay tags every dtp image (k8s/components/release).
          expect([where, m[3]]).toEqual([where, release]);
          if (overlay === 'kind') expect([where, m[1]]).toEqual([where, undefined]);
          else expect([where, Boolean(m[1])]).toEqual([where, true]);
        } else {
          // Third-party images (kind's Kafka, PostgreSQL, MinIO): an explicit, non-latest version.
          expect([where, /:[^:]+$/.test(c.image) && !/:latest$/.test(c.image)]).toEqual([where, true]);
          expect([where, /^dtp\//.test(c.image)]).toEqual([where, false]);
        }
      }
    }
  });

  it("gives every service container an env that passes that service's own config validation", () => {
    for (const w of workloads(objects).filter((x) => appOf(x))) {
      const app = appOf(w)!;
      for (const c of allContainers(w.spec!.template!.spec)) {
        const env = containerEnv(objects, c, secretSource(overlay));
        if (c.command?.includes('dist/tools/rebuild-search.js')) {
          // search:rebuild reads its database and the Kafka variables, not the service's config.
          expect(env.SEARCH_DATABASE_URL).toMatch(/^postgres(ql)?:\/\//);
          expect(env.KAFKA_BROKERS).toMatch(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/);
          continue;
        }
        // The auth CLI serves no HTTP: without AUTH_ADMIN_TOKEN it validates with a random one (cli/commands.ts).
        if (c.command?.includes('dist/apps/auth/src/cli.js')) env.AUTH_ADMIN_TOKEN ??= randomBytes(24).toString('base64url');
        expect(() => loadConfig(`${overlay}/${w.metadata.name}/${c.name}`, CONFIG_CLASSES[app], env)).not.toThrow();
        expect(env.KAFKA_BROKERS).toMatch(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/);
        if (app !== 'auth') {
          const blob = blobStoreSettings(env);
          expect(blob.kind).toBe('s3');
        }
      }
    }
  });

  it('keeps public addresses, audiences and Ingress hosts in agreement, and routes each API to its service', () => {
    const pub = generated(objects, 'ConfigMap', 'dtp-public').data!;
    const ingress = get(objects, 'Ingress', 'dtp');
    const scheme = overlay === 'kind' ? 'http:' : 'https:';
    /** The service the Ingress sends `url` to (ingress-nginx matching: longest Prefix, by path segments). */
    const routeOf = (url: string): string | undefined => {
      const u = new URL(url);
      const rule = ingress.spec!.rules!.find((r) => r.host === u.hostname);
      const matches = (rule?.http.paths ?? []).filter((p) =>
        p.pathType === 'Exact' ? u.pathname === p.path : p.path === '/' || u.pathname === p.path || u.pathname.startsWith(`${p.path.replace(/\/$/, '')}/`),
      );
      matches.sort((a, b) => b.path.length - a.path.length);
      const port = matches[0]?.backend.service.port;
      if (port) expect(port.name).toBe('http');
      return matches[0]?.backend.service.name;
    };
    for (const app of APPS) {
      const url = new URL(pub[PUBLIC_KEY[app]]);
      expect([app, url.protocol]).toEqual([app, scheme]);
      if (overlay !== 'kind') expect(ingress.spec!.tls!.flatMap((t) => t.hosts)).toContain(url.hostname);
    }
    const base = (key: string) => pub[key].replace(/\/$/, '');
    const routes: [string, string | undefined][] = [
      [`${base('AUTH_ISSUER')}/oauth/token`, 'auth'],
      [`${base('AUTH_ISSUER')}/.well-known/jwks.json`, 'auth'],
      // The admin API has its own port and Service (auth-admin, ADMIN_PORT), never the Ingress; nor have the operator paths.
      [`${base('AUTH_ISSUER')}/admin/participants`, undefined],
      [`${base('AUTH_ISSUER')}/docs/json`, undefined],
      [`${base('PLATFORM_AUDIENCE')}/health/ready`, undefined],
      [`${base('GIS_AUDIENCE')}/docs`, undefined],
      [`${base('PLATFORM_AUDIENCE')}/diamonds/rough/create`, 'platform'],
      [`${base('PLATFORM_AUDIENCE')}/v2/transfer/out`, 'platform'],
      [`${base('PLATFORM_AUDIENCE')}/transfer/in/abc/reject`, 'platform'],
      [`${base('SEARCH_AUDIENCE')}/diamonds/abc`, 'search'],
      // The public passport pages and their custody JSON, beside /v1 on the search host.
      [`${base('SEARCH_AUDIENCE').replace(/\/v1$/, '')}/passport/abc`, 'search'],
      [`${base('SEARCH_AUDIENCE').replace(/\/v1$/, '')}/passport/abc/custody`, 'search'],
      [`${base('SEARCH_AUDIENCE').replace(/\/v1$/, '')}/docs`, undefined],
      [`${base('PLATFORM_AUDIENCE')}/.well-known/custody-keys.json`, 'platform'],
      [`${base('GIS_AUDIENCE')}/v2/diamonds/abc/grading`, 'gis'],
    ];
    // Every path of the four OpenAPI documents reaches its service (the Ingress lists path prefixes, not `/`).
    const documented: [string, string][] = [
      ['auth', 'AUTH_ISSUER'],
      ['platform', 'PLATFORM_AUDIENCE'],
      ['search', 'SEARCH_AUDIENCE'],
      ['gis', 'GIS_AUDIENCE'],
    ];
    for (const [app, key] of documented) {
      const doc = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'openapi', `${app}.json`), 'utf8')) as { paths: Record<string, unknown> };
      const origin = app === 'search' ? base(key).replace(/\/v1$/, '') : base(key);
      for (const p of Object.keys(doc.paths).filter((p) => !p.startsWith('/admin'))) routes.push([`${origin}${p.replace(/\{[^}]+\}/g, 'x')}`, app]);
    }
    for (const [url, service] of routes) expect([url, routeOf(url)]).toEqual([url, service]);
    expect(new URL(pub.SEARCH_AUDIENCE).pathname).toBe('/v1');
    // The services' own public URLs are the same addresses.
    const envOf = (app: App) => containerEnv(objects, mainContainer(app), secretSource(overlay));
    expect(envOf('platform').PUBLIC_BASE_URL).toBe(pub.PLATFORM_AUDIENCE);
    expect(envOf('gis').PUBLIC_BASE_URL).toBe(pub.GIS_AUDIENCE);
    expect(envOf('search').PLATFORM_PUBLIC_URL).toBe(pub.PLATFORM_AUDIENCE);
    expect(envOf('search').AUTH_ISSUER).toBe(pub.AUTH_ISSUER);
    expect(new URL(envOf('search').AUTH_JWKS_URL).hostname).toBe('auth');
  });

  if (overlay !== 'kind') {
    it('serves legacy mutual TLS on mtls-* hosts: client certificates requested and passed on, believed only there', () => {
      const mtls = get(objects, 'Ingress', 'dtp-mtls');
      const dtp = get(objects, 'Ingress', 'dtp');
      const a = mtls.metadata.annotations!;
      expect(a['nginx.ingress.kubernetes.io/auth-tls-verify-client']).toBe('optional_no_ca');
      expect(a['nginx.ingress.kubernetes.io/auth-tls-pass-certificate-to-upstream']).toBe('true');
      expect(a['nginx.ingress.kubernetes.io/auth-tls-secret']).toBe(`dtp-${overlay}/dtp-mtls-client-ca`);
      const routes = (ing: typeof dtp, host: string) =>
        (ing.spec!.rules!.find((r) => r.host === host)?.http.paths ?? []).map((p) => `${p.path} -> ${p.backend.service.name}`).sort();
      const mtlsHosts = mtls.spec!.rules!.map((r) => r.host);
      for (const rule of dtp.spec!.rules!) {
        const host = `mtls-${rule.host}`;
        expect(mtlsHosts).toContain(host);
        // every API path of the ordinary host (not the public passport pages) is on its mtls- twin, to the same service
        expect([host, routes(mtls, host)]).toEqual([host, expect.arrayContaining(routes(dtp, rule.host).filter((r) => !r.startsWith('/passport')))]);
      }
      expect(mtls.spec!.tls!.flatMap((t) => t.hosts).sort()).toEqual([...mtlsHosts].sort());
      // The services believe the forwarded certificate only from the controller and only on these hosts.
      for (const app of APPS) {
        const env = containerEnv(objects, mainContainer(app), secretSource(overlay));
        expect([app, env.CLIENT_CERT_PROXY_HOSTS?.split(',').sort()]).toEqual([app, [...mtlsHosts].sort()]);
        expect([app, env.TRUSTED_PROXIES]).toEqual([app, expect.any(String)]);
      }
      const issuer = new URL(containerEnv(objects, mainContainer('auth'), secretSource(overlay)).AUTH_MTLS_URL);
      expect(mtlsHosts).toContain(issuer.hostname);
    });
  }

  it('denies by default and lets each service reach exactly what it needs; the ingress controller reaches all four', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec!.podSelector?.matchLabels ?? {}).length === 0 && !p.spec!.ingress && !p.spec!.egress);
    expect(deny?.spec!.policyTypes?.sort()).toEqual(['Egress', 'Ingress']);

    const egressFor = (labels: Labels): NetworkRule[] =>
      policies.filter((p) => p.spec!.policyTypes?.includes('Egress') && selects(p.spec!.podSelector, labels)).flatMap((p) => p.spec!.egress ?? []);
    const ingressFor = (labels: Labels): NetworkRule[] =>
      policies.filter((p) => p.spec!.policyTypes?.includes('Ingress') && selects(p.spec!.podSelector, labels)).flatMap((p) => p.spec!.ingress ?? []);
    const reaches = (rules: NetworkRule[], port: number, target?: Labels) =>
      rules.some(
        (r) =>
          (r.ports ?? []).some((p) => p.port === port) &&
          (r.to ?? []).some((peer) =>
            target ? !peer.namespaceSelector && peer.podSelector !== undefined && selects(peer.podSelector, target) : Boolean(peer.ipBlock),
          ),
      );

    for (const w of workloads(objects)) {
      for (const rule of egressFor(podLabels(w))) {
        // No rule opens egress to everything.
        expect([w.metadata.name, (rule.to ?? []).length > 0, (rule.ports ?? []).length > 0]).toEqual([w.metadata.name, true, true]);
      }
    }

    for (const app of APPS) {
      const labels = podLabels(deployments[app]);
      const egress = egressFor(labels);
      // DNS
      expect(
        egress.some(
          (r) => r.ports?.some((p) => p.port === 53 && p.protocol === 'UDP') && r.to?.some((t) => t.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns'),
        ),
      ).toBe(true);
      const deps: Dependency[] = ['postgres', 'kafka', 'object-store', 'auth'];
      for (const dep of deps) {
        const port = DEPENDENCY_PORTS[overlay][dep];
        const server =
          overlay === 'kind' || dep === 'auth' ? podLabels(get(objects, dep === 'auth' ? 'Deployment' : 'StatefulSet', KIND_SERVERS[dep])) : undefined;
        const ok = reaches(egress, port, server);
        expect([app, dep, ok]).toEqual([app, dep, NEEDS[app].includes(dep)]);
        // ...and where the server is in the cluster, its own policy lets the service in.
        if (server && NEEDS[app].includes(dep)) {
          const admitted = ingressFor(server).some(
            (r) => r.ports?.some((p) => p.port === port || p.port === 'http') && r.from?.some((f) => !f.namespaceSelector && selects(f.podSelector, labels)),
          );
          expect([app, dep, 'admitted', admitted]).toEqual([app, dep, 'admitted', true]);
        }
      }
      // The ingress controller reaches every service.
      const fromIngress = ingressFor(labels).some((r) =>
        r.from?.some((f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'ingress-nginx'),
      );
      expect([app, fromIngress]).toEqual([app, true]);
    }
    // Only services that check tokens may call auth; nothing else may call the others.
    const authIngress = ingressFor(podLabels(deployments.auth));
    const callers = authIngress.flatMap((r) => r.from ?? []).filter((f) => f.podSelector);
    for (const app of APPS) {
      const allowed = callers.some((f) => selects(f.podSelector, podLabels(deployments[app])));
      expect([app, 'calls auth', allowed]).toEqual([app, 'calls auth', app !== 'auth']);
    }
  });

  it('serves /metrics only on the metrics port (METRICS_PORT), which the Services and the Ingress never route to', () => {
    const ingress = get(objects, 'Ingress', 'dtp');
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy' && o.spec!.policyTypes?.includes('Ingress'));
    for (const app of APPS) {
      const c = mainContainer(app);
      const env = containerEnv(objects, c, secretSource(overlay));
      const config = loadConfig(app, CONFIG_CLASSES[app], env) as BaseServiceConfig;
      // The service itself moves /metrics off its main port (what the kit does with this config).
      const settings = new HttpSettings();
      settings.apply(config);
      expect([app, config.METRICS_PORT, settings.metricsOnMainPort]).toEqual([app, 9464, false]);
      const metricsPort = c.ports!.find((p) => p.name === 'metrics');
      expect([app, metricsPort?.containerPort]).toEqual([app, config.METRICS_PORT]);
      expect(config.METRICS_PORT).not.toBe(config.PORT);
      const annotations = deployments[app].spec!.template!.metadata!.annotations ?? {};
      expect([app, annotations['prometheus.io/port'], annotations['prometheus.io/path']]).toEqual([app, String(config.METRICS_PORT), '/metrics']);
      // Every Service port of the app ends on the http container port, never on the metrics one.
      const svc = get(objects, 'Service', app);
      for (const port of svc.spec!.ports!) {
        const target = typeof port.targetPort === 'string' ? c.ports!.find((p) => p.name === port.targetPort)?.containerPort : (port.targetPort ?? port.port);
        expect([app, port.name, target]).toEqual([app, port.name, config.PORT]);
      }
      // Each Ingress path that reaches this app does so through a Service port that ends on http; /metrics on
      // the app's public host therefore lands on the main port, which answers it 404.
      for (const rule of ingress.spec!.rules!) {
        for (const path of rule.http.paths.filter((p) => p.backend.service.name === app)) {
          const { name, number } = path.backend.service.port;
          const svcPort = svc.spec!.ports!.find((p) => (name !== undefined ? p.name === name : p.port === number));
          expect([rule.host, path.path, svcPort?.targetPort]).toEqual([rule.host, path.path, 'http']);
        }
      }
      // Only the scraper's namespace may open the metrics port; the ingress controller's may not.
      const labels = podLabels(deployments[app]);
      const metricsRules = policies
        .filter((p) => selects(p.spec!.podSelector, labels))
        .flatMap((p) => p.spec!.ingress ?? [])
        .filter((r) => (r.ports ?? []).some((p) => p.port === 'metrics' || p.port === config.METRICS_PORT));
      expect([app, metricsRules.length > 0]).toEqual([app, true]);
      for (const r of metricsRules) {
        const namespaces = (r.from ?? []).map((f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']);
        expect([app, namespaces]).toEqual([app, ['monitoring']]);
      }
    }
  });

  it(`${overlay === 'live' ? 'turns the OpenAPI docs off (DOCS_ENABLED=false)' : 'keeps the OpenAPI docs at /docs'}`, () => {
    for (const app of APPS) {
      const env = containerEnv(objects, mainContainer(app), secretSource(overlay));
      const config = loadConfig(app, CONFIG_CLASSES[app], env) as BaseServiceConfig;
      expect([app, config.DOCS_ENABLED]).toEqual([app, overlay !== 'live']);
    }
  });

  it("autoscales each service where it should (not in kind); every pod applies its migrations first, with the service's own environment", () => {
    for (const app of APPS) {
      const hpa = find(objects, 'HorizontalPodAutoscaler', app);
      if (overlay === 'kind') {
        expect(hpa).toBeUndefined();
        expect(deployments[app].spec!.replicas ?? 1).toBe(1);
      } else {
        expect(hpa?.spec!.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
        expect(hpa!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
        expect(hpa!.spec!.maxReplicas).toBeGreaterThan(hpa!.spec!.minReplicas!);
        // The HPA owns the replica count.
        expect(deployments[app].spec!.replicas).toBeUndefined();
      }
      // The init container migrates (tools/migrate.ts takes the service's advisory lock, so pods starting
      // together take turns), with exactly the environment the service gets: no Job to delete on a new release.
      const inits = deployments[app].spec!.template!.spec.initContainers!;
      expect(inits.map((c) => c.name)).toEqual(['migrate']);
      const [migrate] = inits;
      expect(migrate.command).toEqual(['node', 'dist/tools/migrate.js', app]);
      expect(migrate.image).toBe(mainContainer(app).image);
      expect(migrate.envFrom).toEqual(mainContainer(app).envFrom);
      expect(migrate.env).toEqual(mainContainer(app).env);
    }
    // No migration Jobs (their immutable pod templates needed a delete before every release).
    expect(objects.filter((o) => o.kind === 'Job' && /migrat/.test(o.metadata.name))).toEqual([]);
    // Nothing else runs a server's pods: the CronJobs' pods are not mistaken for them.
    for (const w of workloads(objects).filter((x) => x.kind !== 'Deployment')) {
      for (const app of APPS) expect([w.metadata.name, app, selects(deployments[app].spec!.selector, podLabels(w))]).toEqual([w.metadata.name, app, false]);
    }
  });

  it('labels each server pod with the release (app.kubernetes.io/version), so a new release rolls every Deployment', () => {
    const release = generated(objects, 'ConfigMap', 'dtp-release').data!.RELEASE;
    for (const app of APPS) {
      expect([app, podLabels(deployments[app])['app.kubernetes.io/version']]).toEqual([app, release]);
      expect(selects(deployments[app].spec!.selector, podLabels(deployments[app]))).toBe(true);
      expect(Object.keys(deployments[app].spec!.selector!.matchLabels!)).not.toContain('app.kubernetes.io/version');
    }
  });

  it('rotates the signing key monthly with the auth CLI, one run at a time', () => {
    const cron = get(objects, 'CronJob', 'auth-rotate-signing-key');
    expect(cron.spec!.schedule).toBe('0 3 1 * *');
    expect(cron.spec!.concurrencyPolicy).toBe('Forbid');
    expect(cron.spec!.suspend ?? false).toBe(false);
    const c = cron.spec!.jobTemplate!.spec.template!.spec.containers[0];
    expect(c.command).toEqual(['node', 'dist/apps/auth/src/cli.js', 'rotate-keys']);
    expect(c.image).toBe(mainContainer('auth').image);
    // The same database and key encryption as the auth service; no admin token (the CLI needs none).
    const env = containerEnv(objects, c, secretSource(overlay));
    const authEnv = containerEnv(objects, mainContainer('auth'), secretSource(overlay));
    for (const k of ['DATABASE_URL', 'SIGNING_KEY_ENCRYPTION_KEY'])
      expect(c.env!.find((e) => e.name === k)).toEqual(mainContainer('auth').env!.find((e) => e.name === k));
    expect(env.AUTH_ADMIN_TOKEN).toBeUndefined();
    expect(env.TOKEN_TTL_SECONDS).toBe(authEnv.TOKEN_TTL_SECONDS);
  });

  it("keeps search:rebuild as a suspended template that reads Kafka (prefixes included) and search's database as search does", () => {
    const cron = get(objects, 'CronJob', 'search-rebuild');
    expect(cron.spec!.suspend).toBe(true);
    const pod = cron.spec!.jobTemplate!.spec.template!;
    const c = pod.spec.containers[0];
    expect(c.command).toEqual(['node', 'dist/tools/rebuild-search.js', '--no-progress']);
    expect(c.image).toBe(mainContainer('search').image);
    const env = containerEnv(objects, c, secretSource(overlay));
    const searchEnv = containerEnv(objects, mainContainer('search'), secretSource(overlay));
    const kafka = (e: Record<string, string>) => Object.fromEntries(Object.entries(e).filter(([k]) => k.startsWith('KAFKA_')));
    expect(kafka(env)).toEqual(kafka(searchEnv));
    expect(Object.keys(kafka(env))).toContain('KAFKA_BROKERS');
    expect(env.SEARCH_DATABASE_URL).toBe(searchEnv.DATABASE_URL);
    // It may reach PostgreSQL and Kafka (the dependency policies), nothing else.
    expect(
      Object.keys(pod.metadata!.labels!)
        .filter((l) => l.startsWith('dtp/'))
        .sort(),
    ).toEqual(['dtp/kafka-client', 'dtp/postgres-client']);
  });
});

describe('overlays compared', () => {
  it('gives sandbox and live their own base addresses, namespaces and buckets', () => {
    const pub = (o: Overlay) => generated(render(o), 'ConfigMap', 'dtp-public').data!;
    const deps = (o: Overlay) => generated(render(o), 'ConfigMap', 'dtp-dependencies').data!;
    for (const key of Object.values(PUBLIC_KEY)) {
      expect(new Set(OVERLAYS.map((o) => new URL(pub(o)[key]).host)).size).toBe(3);
    }
    expect(deps('sandbox').S3_BUCKET).not.toBe(deps('live').S3_BUCKET);
    expect(deps('sandbox').KAFKA_BROKERS).not.toBe(deps('live').KAFKA_BROKERS);
  });

  it('scales live at least as far as sandbox', () => {
    for (const app of APPS) {
      const s = get(render('sandbox'), 'HorizontalPodAutoscaler', app).spec!;
      const l = get(render('live'), 'HorizontalPodAutoscaler', app).spec!;
      expect(l.minReplicas!).toBeGreaterThanOrEqual(s.minReplicas!);
      expect(l.maxReplicas!).toBeGreaterThanOrEqual(s.maxReplicas!);
    }
  });
});

describe('kind overlay: the in-cluster dependencies agree with the services', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render('kind');
  });
  const secret = (name: string, key: string) => decode(generated(objects, 'Secret', name), key)!;

  it('creates, on first start, exactly the databases and roles the DATABASE_URLs use, with the same passwords', () => {
    const script = generated(objects, 'ConfigMap', 'postgres-init').data!['10-dtp-databases.sh'];
    expect(script).toBe(readFileSync(path.join(root, 'k8s/overlays/kind/postgres-init.sh'), 'utf8'));
    const pg = get(objects, 'StatefulSet', 'postgres').spec!.template!.spec;
    expect(pg.containers[0].volumeMounts!.find((m) => m.mountPath === '/docker-entrypoint-initdb.d')).toBeDefined();
    for (const app of APPS) {
      const url = new URL(secret(`${app}-secrets`, 'DATABASE_URL'));
      expect([url.hostname, url.port, url.username, url.pathname]).toEqual(['postgres', '5432', `dtp_${app}`, `/dtp_${app}`]);
      expect(decodeURIComponent(url.password)).toBe(secret('postgres-credentials', `${app.toUpperCase()}_DB_PASSWORD`));
    }
  });

  it('gives the services the object store credentials MinIO was started with, and a bucket Job for the same bucket', () => {
    expect(secret('dtp-object-store', 'S3_ACCESS_KEY_ID')).toBe(secret('minio-credentials', 'MINIO_ROOT_USER'));
    expect(secret('dtp-object-store', 'S3_SECRET_ACCESS_KEY')).toBe(secret('minio-credentials', 'MINIO_ROOT_PASSWORD'));
    const deps = generated(objects, 'ConfigMap', 'dtp-dependencies').data!;
    expect(new URL(deps.S3_ENDPOINT).hostname).toBe('minio');
    expect(new URL(deps.S3_ENDPOINT).port).toBe(String(get(objects, 'Service', 'minio').spec!.ports![0].port));
    const job = get(objects, 'Job', 'create-bucket').spec!.template!.spec;
    expect(job.containers[0].envFrom?.map((e) => e.configMapRef?.name)).toEqual([generated(objects, 'ConfigMap', 'dtp-dependencies').metadata.name]);
    expect(generated(objects, 'ConfigMap', 'create-bucket-script').data!['create-bucket.js']).toBe(
      readFileSync(path.join(root, 'k8s/overlays/kind/create-bucket.js'), 'utf8'),
    );
  });

  it('runs Kafka in KRaft mode, advertised at the address the services use, without service-link variables', () => {
    const kafka = get(objects, 'StatefulSet', 'kafka').spec!.template!.spec;
    expect(kafka.enableServiceLinks).toBe(false);
    const env = Object.fromEntries(kafka.containers[0].env!.map((e) => [e.name, e.value]));
    expect(env.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(env.CLUSTER_ID).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const brokers = generated(objects, 'ConfigMap', 'dtp-dependencies').data!.KAFKA_BROKERS;
    expect(env.KAFKA_ADVERTISED_LISTENERS).toBe(`PLAINTEXT://${brokers}`);
    expect(env.KAFKA_NUM_PARTITIONS).toBe('4');
  });

  it('uses the admin token and hosts the smoke test expects', () => {
    const smoke = readFileSync(path.join(root, 'deploy/smoke-test.sh'), 'utf8');
    // No committed default: the admin token is the generated one, from the file auth-secrets is made of.
    expect(secret('auth-secrets', 'AUTH_ADMIN_TOKEN')).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(smoke).not.toMatch(/ADMIN_TOKEN:-[^}]/);
    expect(smoke).toContain('k8s/overlays/kind/secrets/auth.env');
    const kustomization = parse(readFileSync(path.join(root, 'k8s/overlays/kind/kustomization.yaml'), 'utf8')) as {
      secretGenerator: { name: string; envs?: string[] }[];
    };
    expect(kustomization.secretGenerator.find((g) => g.name === 'auth-secrets')?.envs).toEqual(['secrets/auth.env']);
    const pub = generated(objects, 'ConfigMap', 'dtp-public').data!;
    expect(smoke).toContain(`AUTH_URL="\${AUTH_URL:-${pub.AUTH_ISSUER}}"`);
    expect(smoke).toContain(`BASE_URL="\${BASE_URL:-${pub.PLATFORM_AUDIENCE}}"`);
    expect(smoke).toContain(`SEARCH_URL="\${SEARCH_URL:-${pub.SEARCH_AUDIENCE.replace(/\/v1$/, '')}}"`);
  });
});
