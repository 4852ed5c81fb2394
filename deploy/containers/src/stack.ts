/**
 * The pieces of the container stage (test/containers.spec.ts): a Docker engine, the images, the dependencies the
 * kind overlay runs in the cluster (PostgreSQL, Kafka, the object store) stood in for by real servers on this
 * machine, and each service's container made from its rendered Deployment.
 *
 * Networking: every container runs with `--network host`. The Kafka peer (the kcat mock cluster) and the embedded
 * PostgreSQL listen on loopback, and the mock cluster advertises 127.0.0.1 to its clients, so from a bridge
 * network it could be dialled but not used. Host networking also means every port is a port of this machine: each
 * service gets free ports picked at run time (PORT, METRICS_PORT and any other *_PORT of its env), never the fixed
 * ones of the manifests, so this stage can run beside other tests; the four start again on fresh ones when another
 * process took one before its service could bind it (test/containers.spec.ts, onFreshPorts of @dtp/testing).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the deploy checks' renderer and process helpers, shared test tooling
import { decode, find, get, type Container, type K8sObject } from '../../checks/src/manifests';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the deploy checks' renderer and process helpers, shared test tooling
import { run, start, waitFor } from '../../checks/src/processes';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the deploy checks' renderer and process helpers, shared test tooling
import { root } from '../../checks/src/tools';

export const DOCKER = process.env.DOCKER ?? '/usr/bin/docker';

/** The last non-empty line of a command's output: what a one-line error quotes. */
export function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .pop() ?? ''
  );
}

/**
 * A Docker engine that answers (deploy/docker-engine.sh: one already running, else Debian's dockerd started here,
 * installed with apt-get when absent). Returns its DOCKER_HOST, and whether this call started it.
 */
export async function ensureEngine(): Promise<{ host: string; started: boolean }> {
  const pidAlive = await run('bash', ['-c', 'test -f /run/dtp-docker/dockerd.pid && kill -0 "$(cat /run/dtp-docker/dockerd.pid)"']);
  const r = await run('bash', [path.join(root, 'deploy', 'docker-engine.sh')]);
  const host = lastLine(r.stdout);
  if (r.code !== 0 || !host) {
    throw new Error(`no Docker engine could start here: ${lastLine(r.output) || `exit ${r.code}`} (DTP_SKIP_CONTAINERS=1 skips this stage on purpose)`);
  }
  const pidAliveAfter = await run('bash', ['-c', 'test -f /run/dtp-docker/dockerd.pid && kill -0 "$(cat /run/dtp-docker/dockerd.pid)"']);
  return { host, started: pidAlive.code !== 0 && pidAliveAfter.code === 0 };
}

export function docker(host: string, args: string[]) {
  return run(DOCKER, args, { ...process.env, DOCKER_HOST: host });
}

/** The kcat mock cluster (tools/kafka-peer.mjs) in a child process (that module is ESM). */
export async function startKafkaPeer(): Promise<{ brokers: string; stop: () => Promise<void> }> {
  const code = `
    import { startKafkaPeer } from './tools/kafka-peer.mjs';
    const peer = await startKafkaPeer();
    process.stdout.write('BROKERS ' + peer.brokers + '\\n');
    process.on('SIGTERM', async () => { await peer.stop(); process.exit(0); });
    setInterval(() => {}, 1 << 30);
  `;
  const p = start(process.execPath, ['--input-type=module', '-e', code], process.env);
  await waitFor('the Kafka peer', () => /BROKERS \S+/.test(p.output()) || p.child.exitCode !== null, 120_000);
  const brokers = /BROKERS (\S+)/.exec(p.output())?.[1];
  if (!brokers) throw new Error(`the Kafka peer did not start: ${lastLine(p.output())}`);
  return {
    brokers,
    stop: async () => {
      p.child.kill('SIGTERM');
      await p.exited;
    },
  };
}

interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

/**
 * s3rver (a real S3 HTTP server, data on disk) standing in for the overlay's MinIO, with the bucket the overlay
 * names and the access key the overlay's Secret holds (registered as an account of its own).
 */
export async function startObjectStore(
  dir: string,
  bucket: string,
  accessKeyId: string,
  secretAccessKey: string,
): Promise<{ port: number; stop: () => Promise<void> }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const accounts = require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } };
  accounts.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return { port, stop: () => server.close() };
}

/** A Kubernetes quantity of memory in bytes ("512Mi", "1Gi", "300M", "1000000"). */
export function memoryBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q);
  if (!m) throw new Error(`memory quantity ${q} not understood`);
  const unit: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Math.round(Number(m[1]) * (m[2] ? unit[m[2]] : 1));
}

/** A Kubernetes CPU quantity in cores ("1", "500m", "0.5"). */
export function cpuCores(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m)?$/.exec(q);
  if (!m) throw new Error(`cpu quantity ${q} not understood`);
  return m[2] ? Number(m[1]) / 1000 : Number(m[1]);
}

/**
 * `docker run` options for a container as its Deployment runs it: the pod's and the container's securityContext
 * (user and group, read-only root filesystem, capabilities dropped, no privilege escalation; RuntimeDefault seccomp
 * is Docker's default profile), its resource limits, and its emptyDir volumes as tmpfs owned by the pod's user.
 */
export function runOptions(workload: K8sObject, c: Container): string[] {
  const pod = workload.spec!.template!.spec;
  const podSc = (pod.securityContext ?? {}) as { runAsUser?: number; runAsGroup?: number; fsGroup?: number };
  const sc = (c.securityContext ?? {}) as {
    runAsUser?: number;
    runAsGroup?: number;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  const uid = sc.runAsUser ?? podSc.runAsUser;
  const gid = sc.runAsGroup ?? podSc.runAsGroup;
  const opts: string[] = [];
  if (uid !== undefined) opts.push('--user', gid !== undefined ? `${uid}:${gid}` : String(uid));
  if (sc.readOnlyRootFilesystem) opts.push('--read-only');
  for (const cap of sc.capabilities?.drop ?? []) opts.push('--cap-drop', cap);
  for (const cap of sc.capabilities?.add ?? []) opts.push('--cap-add', cap);
  if (sc.allowPrivilegeEscalation === false) opts.push('--security-opt', 'no-new-privileges');
  const limits = (c.resources as { limits?: { memory?: string; cpu?: string } } | undefined)?.limits ?? {};
  if (limits.memory) opts.push('--memory', String(memoryBytes(limits.memory)), '--memory-swap', String(memoryBytes(limits.memory)));
  if (limits.cpu) opts.push('--cpus', String(cpuCores(limits.cpu)));
  const volumes = (pod.volumes ?? []) as { name: string; emptyDir?: { sizeLimit?: string; medium?: string } }[];
  for (const m of (c.volumeMounts ?? []) as { name: string; mountPath: string }[]) {
    const v = volumes.find((x) => x.name === m.name);
    if (!v?.emptyDir) throw new Error(`${c.name}: volume ${m.name} is not an emptyDir; this stage only knows emptyDirs`);
    const size = v.emptyDir.sizeLimit ? `,size=${memoryBytes(v.emptyDir.sizeLimit)}` : '';
    const owner = uid !== undefined ? `,uid=${uid},gid=${podSc.fsGroup ?? gid ?? uid}` : '';
    opts.push('--tmpfs', `${m.mountPath}:rw,exec${size}${owner}`);
  }
  return opts;
}

export interface Here {
  /** Where each service listens here: its env's *_PORT variables, remapped to free ports. */
  ports: Record<string, Record<string, number>>;
  postgres: { host: string; port: number };
  kafkaBrokers: string;
  objectStorePort: number;
}

/** Host names the rendered manifests use for each service: its Service name and its Ingress host(s). */
export function serviceHosts(objects: K8sObject[], apps: readonly string[]): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const app of apps) hosts.set(app, app);
  for (const ing of objects.filter((o) => o.kind === 'Ingress')) {
    const rules = (ing.spec as { rules?: { host?: string; http?: { paths?: { backend?: { service?: { name?: string } } }[] } }[] })?.rules ?? [];
    for (const rule of rules) {
      const names = new Set((rule.http?.paths ?? []).map((p) => p.backend?.service?.name).filter((n): n is string => !!n && apps.includes(n)));
      if (rule.host && names.size === 1) hosts.set(rule.host, [...names][0]);
    }
  }
  return hosts;
}

/**
 * A container's environment from the rendered manifests (envFrom and env, Secrets decoded), with only what must
 * differ on this machine replaced: the dependencies' addresses (postgres:5432, kafka:9092, minio:9000), every
 * address of a service (its Service name or Ingress host, in any URL) by 127.0.0.1 and its port here, and the
 * ports themselves. Anything that names a host this stage does not know fails, so a new dependency shows up here.
 */
export function envHere(objects: K8sObject[], app: string, env: Record<string, string>, here: Here, hosts: Map<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const httpHost = (host: string): string => {
    const target = hosts.get(host);
    if (target) {
      const port = here.ports[target]?.PORT;
      if (!port) throw new Error(`${app}: no port known here for ${target}`);
      return `127.0.0.1:${port}`;
    }
    if (host === 'minio') return `127.0.0.1:${here.objectStorePort}`;
    throw new Error(`${app}: its environment names host ${host}, which this stage does not run`);
  };
  for (const [k, v] of Object.entries(env)) {
    let value = v;
    if (/_PORT$|^PORT$/.test(k) && /^\d+$/.test(v)) {
      value = String(here.ports[app][k]);
    } else if (/^postgres(ql)?:\/\//.test(v)) {
      const u = new URL(v);
      if (u.hostname !== 'postgres') throw new Error(`${app}: ${k} names database host ${u.hostname}, not the overlay's postgres`);
      u.hostname = here.postgres.host;
      u.port = String(here.postgres.port);
      value = u.toString();
    } else if (k === 'KAFKA_BROKERS') {
      value = v
        .split(',')
        .map((b) => (b.trim().startsWith('kafka:') ? here.kafkaBrokers : b))
        .join(',');
    } else {
      value = v.replace(/\bhttps?:\/\/([a-z0-9.-]+)(:\d+)?/g, (_m, host: string) => `http://${httpHost(host)}`);
    }
    if (/[\n\r]/.test(value)) throw new Error(`${app}: ${k} holds a line break, which an env file cannot carry`);
    out[k] = value;
  }
  return out;
}

/** Every *_PORT (and PORT) variable with a number in a service's env: the ports it will listen on. */
export function portVariables(env: Record<string, string>): string[] {
  return Object.keys(env).filter((k) => /_PORT$|^PORT$/.test(k) && /^\d+$/.test(env[k]));
}

export function secretValue(objects: K8sObject[], base: string, key: string): string {
  const s = objects.find((o) => o.kind === 'Secret' && (o.metadata.name === base || o.metadata.name.startsWith(`${base}-`)));
  const v = s ? decode(s, key) : undefined;
  if (v === undefined) throw new Error(`no Secret ${base} with key ${key} in the rendered overlay`);
  return v;
}

export function deployment(objects: K8sObject[], app: string): K8sObject {
  return get(objects, 'Deployment', app);
}

export { find };

/** Streams a command's output to our stderr with a prefix, and resolves with its exit code and output. */
export function runLogged(
  cmd: string,
  args: string[],
  env: Record<string, string | undefined>,
  prefix: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer) => {
      output += d;
      for (const line of d.toString().split('\n')) if (line.trim()) process.stderr.write(prefix ? `${prefix} ${line}\n` : `${line}\n`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => resolve({ code, output }));
  });
}
