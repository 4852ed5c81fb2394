/**
 * deploy/ and the kind overlay's scripts: syntax and shellcheck, the kind workflow's agreement with the
 * manifests and the Dockerfile, its prerequisite messages, and the two scripts that run inside the cluster
 * (PostgreSQL's init script, the bucket Job) executed for real against a PostgreSQL and an S3 server here.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { parse } from 'yaml';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { parseDockerfile } from '../src/dockerfile';
import { APPS, containerEnv, decode, generated, get, render } from '../src/manifests';
import { run, startThrowawayPostgres } from '../src/processes';
import { ensurePsql, ensureShellcheck, root } from '../src/tools';

const SCRIPTS = [
  'deploy/kind-up.sh',
  'deploy/kind-down.sh',
  'deploy/kind-secrets.sh',
  'deploy/smoke-test.sh',
  'deploy/images.sh',
  'deploy/docker-engine.sh',
  'k8s/overlays/kind/postgres-init.sh',
];
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

describe('shell scripts', () => {
  it.each(SCRIPTS)('%s: strict mode, valid bash, shellcheck-clean', async (script) => {
    expect(read(script)).toMatch(/^#!\/usr\/bin\/env bash|^#!\/bin\/bash/);
    expect(read(script)).toContain('set -euo pipefail');
    const syntax = await run('bash', ['-n', script]);
    expect([syntax.code, syntax.output]).toEqual([0, '']);
    const lint = await run(ensureShellcheck(), ['-x', script]);
    expect([lint.code, lint.output]).toEqual([0, '']);
  });
});

describe('the kind workflow agrees with the cluster config, the Dockerfile and the kind overlay', () => {
  const up = read('deploy/kind-up.sh');
  const config = parse(read('deploy/kind-config.yaml')) as {
    kind: string;
    name: string;
    nodes: { role: string; kubeadmConfigPatches?: string[]; extraPortMappings?: { containerPort: number; hostPort: number }[] }[];
  };
  const objects = () => render('kind');

  it('creates one ingress-ready node publishing ports 80 and 443, under the cluster name the scripts use', () => {
    expect(config.kind).toBe('Cluster');
    const node = config.nodes[0];
    expect(node.kubeadmConfigPatches?.join('\n')).toContain('node-labels: "ingress-ready=true"');
    expect(node.extraPortMappings?.map((m) => [m.containerPort, m.hostPort])).toEqual([
      [80, 80],
      [443, 443],
    ]);
    expect(up).toContain(`CLUSTER="${config.name}"`);
    expect(read('deploy/kind-down.sh')).toContain(`CLUSTER="${config.name}"`);
    expect(up).toContain('--config "$ROOT/deploy/kind-config.yaml"');
  });

  it('builds and loads every service image under the tag the kind overlay runs', () => {
    expect(/APPS=\(([^)]*)\)/.exec(up)![1].split(' ')).toEqual([...APPS]);
    const targets = parseDockerfile().stages.map((s) => s.name);
    for (const app of APPS) expect(targets).toContain(app);
    expect(up).toContain('docker build -f "$ROOT/docker/Dockerfile" --target "$app" -t "dtp/${app}:${TAG}" "$ROOT"');
    expect(up).toContain('kind load docker-image "dtp/${app}:${TAG}" --name "$CLUSTER"');
    const tag = /TAG="([^"]+)"/.exec(up)![1];
    // The kind overlay's release is the tag of every dtp image it runs (k8s/components/release).
    expect(generated(objects(), 'ConfigMap', 'dtp-release').data!.RELEASE).toBe(tag);
    const images = objects()
      .filter((o) => o.kind === 'Deployment')
      .flatMap((d) => d.spec!.template!.spec.containers.map((c) => c.image));
    expect(images.sort()).toEqual(APPS.map((a) => `dtp/${a}:${tag}`).sort());
  });

  it('installs ingress-nginx from a pinned release manifest for kind', () => {
    const version = /INGRESS_NGINX_VERSION="([^"]+)"/.exec(up)![1];
    expect(version).toMatch(/^controller-v\d+\.\d+\.\d+$/);
    expect(up).toContain(
      'INGRESS_NGINX_MANIFEST="https://raw.githubusercontent.com/kubernetes/ingress-nginx/${INGRESS_NGINX_VERSION}/deploy/static/provider/kind/deploy.yaml"',
    );
  });

  it('installs, pinned, the CRDs of every custom resource the kind overlay renders (prometheus-operator)', () => {
    const version = /PROMETHEUS_OPERATOR_VERSION="([^"]+)"/.exec(up)![1];
    expect(version).toMatch(/^v\d+\.\d+\.\d+$/);
    const crds = /PROMETHEUS_OPERATOR_CRDS=\(([^)]*)\)/.exec(up)![1].split(' ');
    const custom = objects().filter((o) => o.apiVersion.startsWith('monitoring.coreos.com/'));
    expect(custom.length).toBeGreaterThan(0);
    expect([...new Set(custom.map((o) => `${o.kind.toLowerCase()}s`))].sort()).toEqual([...crds].sort());
    expect(up).toContain(
      'https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/${PROMETHEUS_OPERATOR_VERSION}/example/prometheus-operator-crd/monitoring.coreos.com_${crd}.yaml',
    );
    expect(up).toContain('wait --for=condition=established "crd/${crd}.monitoring.coreos.com"');
    // Installed before the overlay is applied.
    expect(up.indexOf('  install_monitoring_crds\n')).toBeLessThan(up.indexOf('  apply_manifests\n'));
    expect(up.indexOf('  install_monitoring_crds\n')).toBeGreaterThan(-1);
  });

  it('applies the kind overlay and waits for every StatefulSet, Job and Deployment in it', () => {
    expect(up).toContain('apply -k "$ROOT/k8s/overlays/kind"');
    const statefulSets = objects()
      .filter((o) => o.kind === 'StatefulSet')
      .map((o) => o.metadata.name);
    expect(/for sts in ([^;]+);/.exec(up)![1].split(' ').sort()).toEqual(statefulSets.sort());
    const jobs = objects()
      .filter((o) => o.kind === 'Job')
      .map((o) => o.metadata.name);
    const waited = [...up.matchAll(/condition=complete "?job\/([^" ]+)"?/g)].map((m) => m[1]);
    expect(waited.sort()).toEqual(jobs.sort());
    const deployments = objects()
      .filter((o) => o.kind === 'Deployment')
      .map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual([...APPS].sort());
    expect(up).toContain('rollout status "deployment/${app}"');
    // The kind-only bucket Job is removed before a re-apply (its pod template is immutable); migrations need no
    // delete: each new pod applies them.
    expect(up).toContain('delete job create-bucket');
    expect(up).not.toMatch(/delete job -l|job\/\$\{app\}-migrate/);
    expect(up).toContain('"$ROOT/deploy/smoke-test.sh"');
  });

  describe('prerequisite messages', () => {
    let bin: string;
    beforeAll(() => {
      bin = mkdtempSync(path.join(tmpdir(), 'dtp-fake-bin-'));
    });
    afterAll(() => rmSync(bin, { recursive: true, force: true }));
    const fake = (name: string, body: string) => {
      writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(path.join(bin, name), 0o755);
    };

    it('kind-up.sh names the missing tool and exits 1', async () => {
      const r = await run('/bin/bash', ['deploy/kind-up.sh'], { PATH: '/nonexistent', HOME: tmpdir() });
      expect(r.code).toBe(1);
      expect(r.output).toContain("'docker' is required and was not found on PATH");
      // Nothing before the check needs a command from PATH (dirname once did, printing 'command not found').
      expect(r.output).not.toContain('command not found');
    });

    it('kind-up.sh says so when the Docker daemon is not running', async () => {
      fake('docker', 'echo "Cannot connect to the Docker daemon" >&2; exit 1');
      fake('kind', 'exit 0');
      fake('kubectl', 'exit 0');
      fake('curl', 'exit 0');
      const r = await run('/bin/bash', ['deploy/kind-up.sh'], { PATH: `${bin}:/usr/bin:/bin`, HOME: tmpdir() });
      expect(r.code).toBe(1);
      expect(r.output).toContain('the Docker daemon is not reachable');
    });

    it('kind-up.sh refuses unknown arguments with exit 2; --help prints the steps', async () => {
      expect((await run('/bin/bash', ['deploy/kind-up.sh', '--frobnicate'])).code).toBe(2);
      const help = await run('/bin/bash', ['deploy/kind-up.sh', '--help']);
      expect(help.code).toBe(0);
      expect(help.output).toContain('build the four images');
    });

    it('kind-down.sh names the missing tool', async () => {
      const r = await run('/bin/bash', ['deploy/kind-down.sh'], { PATH: '/nonexistent', HOME: tmpdir() });
      expect(r.code).toBe(1);
      expect(r.output).toContain("'kind' is required");
    });
  });
});

describe('kind overlay scripts, executed', () => {
  it('postgres-init.sh creates one owned database per service; the init containers then migrate each with its own role', async () => {
    ensurePsql();
    const objects = render('kind');
    const pg = await startThrowawayPostgres();
    try {
      const server = new URL(pg.url);
      const creds = generated(objects, 'Secret', 'postgres-credentials');
      const env: Record<string, string | undefined> = {
        PATH: process.env.PATH,
        POSTGRES_USER: 'postgres',
        PGHOST: server.hostname,
        PGPORT: server.port,
        PGPASSWORD: decodeURIComponent(server.password),
      };
      for (const k of Object.keys(creds.data!)) env[k] = decode(creds, k);
      const init = await run('bash', ['k8s/overlays/kind/postgres-init.sh'], env);
      expect(init.output).toContain('created database dtp_gis');
      expect(init.code).toBe(0);

      const local = (url: string) => {
        const u = new URL(url);
        u.hostname = server.hostname;
        u.port = server.port;
        return u.toString();
      };
      for (const app of APPS) {
        // Exactly the init container's command and environment, pointed at this server.
        const init = get(objects, 'Deployment', app).spec!.template!.spec.initContainers![0];
        expect(init.command).toEqual(['node', 'dist/tools/migrate.js', app]);
        const jobEnv = containerEnv(objects, init, () => undefined);
        jobEnv.DATABASE_URL = local(jobEnv.DATABASE_URL);
        const migrate = await run(process.execPath, ['-r', './tools/register.js', 'tools/migrate.ts', app], { ...process.env, ...jobEnv, LOG_LEVEL: 'warn' });
        expect([app, migrate.code, migrate.output]).toEqual([app, 0, '']);
        const wait = await run(process.execPath, ['-r', './tools/register.js', 'tools/migrate.ts', '--wait', '--timeout', '5', app], {
          ...process.env,
          DATABASE_URL: jobEnv.DATABASE_URL,
          LOG_LEVEL: 'warn',
        });
        expect([app, wait.code]).toEqual([app, 0]);
      }
      // A service's role cannot open another service's database.
      const search = new URL(local(decode(generated(objects, 'Secret', 'search-secrets'), 'DATABASE_URL')!));
      search.pathname = '/dtp_auth';
      const client = new Client({ connectionString: search.toString() });
      await expect(client.connect()).rejects.toThrow(/permission denied/);
      await client.end().catch(() => undefined);
    } finally {
      await pg.stop();
    }
  }, 180_000);

  describe('create-bucket.js', () => {
    interface S3rverServer {
      run(): Promise<AddressInfo>;
      close(): Promise<void>;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;
    let server: S3rverServer;
    let dir: string;
    let endpoint: string;
    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'dtp-s3rver-'));
      server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
      endpoint = `http://127.0.0.1:${(await server.run()).port}`;
    });
    afterAll(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates the bucket of dtp-dependencies once, then finds it; the services can then use it', async () => {
      const deps = generated(render('kind'), 'ConfigMap', 'dtp-dependencies').data!;
      const env = { ...process.env, ...deps, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };
      const first = await run(process.execPath, ['k8s/overlays/kind/create-bucket.js'], env);
      expect([first.code, first.stdout]).toEqual([0, `bucket ${deps.S3_BUCKET} created\n`]);
      const second = await run(process.execPath, ['k8s/overlays/kind/create-bucket.js'], env);
      expect([second.code, second.stdout]).toEqual([0, `bucket ${deps.S3_BUCKET} exists\n`]);
      const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
      await expect(s3.send(new HeadBucketCommand({ Bucket: deps.S3_BUCKET }))).resolves.toBeDefined();
      s3.destroy();
    });

    it('fails with a message when S3_BUCKET is missing or the store never answers', async () => {
      const noBucket = await run(process.execPath, ['k8s/overlays/kind/create-bucket.js'], { PATH: process.env.PATH, S3_ENDPOINT: endpoint });
      expect(noBucket.code).toBe(1);
      expect(noBucket.output).toContain('S3_BUCKET is not set');
      const down = await run(process.execPath, ['k8s/overlays/kind/create-bucket.js'], {
        PATH: process.env.PATH,
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_BUCKET: 'dtp-blobs',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'x',
        S3_SECRET_ACCESS_KEY: 'y',
        TIMEOUT_SECONDS: '1',
      });
      expect(down.code).toBe(1);
      expect(down.output).toContain('create-bucket failed');
    });
  });
});

describe("the kind overlay's secrets: generated, never committed", () => {
  it('kind-secrets.sh writes random values once (a second run keeps them), with matching database passwords', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dtp-kind-secrets-'));
    try {
      const first = await run('bash', ['deploy/kind-secrets.sh', dir]);
      expect(first.code).toBe(0);
      const env = (f: string) =>
        Object.fromEntries(
          readFileSync(path.join(dir, f), 'utf8')
            .trim()
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
      const auth = env('auth.env');
      const pg = env('postgres.env');
      expect(auth.AUTH_ADMIN_TOKEN).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(Buffer.from(auth.SIGNING_KEY_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
      expect(Buffer.from(env('platform.env').WEBHOOK_SECRET_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
      expect(decodeURIComponent(new URL(auth.DATABASE_URL).password)).toBe(pg.AUTH_DB_PASSWORD);
      expect(env('object-store.env').S3_SECRET_ACCESS_KEY).toBe(env('minio.env').MINIO_ROOT_PASSWORD);
      // The custody signing key platform and search share: a private Ed25519 JWK whose x is the public half of its d.
      const custody = env('custody.env');
      const jwk = JSON.parse(custody.CUSTODY_SIGNING_KEY) as { kty: string; crv: string; d: string; x: string; kid: string };
      expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: expect.stringMatching(/^kind-custody-/) });
      expect(createPublicKey(createPrivateKey({ key: jwk, format: 'jwk' })).export({ format: 'jwk' }).x).toBe(jwk.x);
      const again = await run('bash', ['deploy/kind-secrets.sh', dir]);
      expect([again.code, env('auth.env'), env('custody.env')]).toEqual([0, auth, custody]);
      // A checkout whose other secrets exist but not this one gets it, the others kept.
      rmSync(path.join(dir, 'custody.env'));
      await run('bash', ['deploy/kind-secrets.sh', dir]);
      expect([env('auth.env'), env('custody.env').CUSTODY_SIGNING_KEY === custody.CUSTODY_SIGNING_KEY]).toEqual([auth, false]);
      // A platform.env made before the webhook secrets' key gets one, its database address kept.
      const platform = env('platform.env');
      writeFileSync(path.join(dir, 'platform.env'), `DATABASE_URL=${platform.DATABASE_URL}\n`);
      await run('bash', ['deploy/kind-secrets.sh', dir]);
      expect(env('platform.env').DATABASE_URL).toBe(platform.DATABASE_URL);
      expect(Buffer.from(env('platform.env').WEBHOOK_SECRET_ENCRYPTION_KEY, 'base64')).toHaveLength(32);
      const other = mkdtempSync(path.join(tmpdir(), 'dtp-kind-secrets-'));
      await run('bash', ['deploy/kind-secrets.sh', other]);
      expect(readFileSync(path.join(other, 'auth.env'), 'utf8')).not.toBe(readFileSync(path.join(dir, 'auth.env'), 'utf8'));
      rmSync(other, { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('smoke-test.sh has no admin token of its own: without ADMIN_TOKEN or the generated file it stops, saying so', async () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'dtp-smoke-'));
    try {
      const deployDir = path.join(copy, 'deploy');
      mkdirSync(deployDir);
      writeFileSync(path.join(deployDir, 'smoke-test.sh'), read('deploy/smoke-test.sh'));
      const r = await run('bash', [path.join(deployDir, 'smoke-test.sh')], { PATH: process.env.PATH, AUTH_URL: 'http://127.0.0.1:9' });
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/ADMIN_TOKEN is not set and .*k8s\/overlays\/kind\/secrets\/auth\.env does not exist/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
