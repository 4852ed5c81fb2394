#!/usr/bin/env node
/**
 * `npm run build`: compiles the TypeScript of every app and lib (and the tools the images run: tools/migrate.ts, in
 * every image, and tools/rebuild-search.ts, in search's) to plain CommonJS under dist/, keeping the source layout
 * (dist/apps/auth/src/main.js, dist/libs/..., dist/tools/migrate.js, dist/tools/rebuild-search.js).
 * swc emits decorator metadata (NestJS dependency injection needs it) and rewrites the @dtp/* path aliases of
 * tsconfig.base.json into relative requires, so the output runs with plain `node` and node_modules, no loader.
 * Type checking stays with `tsc --noEmit` (npm test). Usage: node tools/build.js [--out DIR] [--project ROOT]
 * `--project apps/platform` compiles one project's sources into DIR/apps/platform only (Nx's per-project `build`
 * target; `tools` compiles the migration runner); without it, everything the images need.
 * The packages an integrator installs (@dtp/sdk, @dtp/verify with their .d.ts, @dtp/cli) are built by
 * tools/build-packages.js (`npm run packages`), not here.
 */
const { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const swc = require('@swc/core');

const root = path.join(__dirname, '..');
const outArg = process.argv.indexOf('--out');
const outDir = path.resolve(root, outArg > 0 ? process.argv[outArg + 1] : 'dist');
const projectArg = process.argv.indexOf('--project');
const onlyProject = projectArg > 0 ? path.normalize(process.argv[projectArg + 1]).replace(/\/+$/, '') : null;
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));

/** Test helpers, not part of any service: left out of the build. */
const SKIP = new Set(['libs/testing']);

/** The tools the images run (docker/Dockerfile copies migrate into every image, rebuild-search into search's). */
const IMAGE_TOOLS = ['migrate', 'rebuild-search'];

/** Sources that go into the build: app and lib code (no tests) and the migration runner. */
function sources() {
  if (onlyProject === 'tools') return IMAGE_TOOLS.map((t) => path.join(root, 'tools', `${t}.ts`));
  const files = onlyProject ? [] : IMAGE_TOOLS.map((t) => path.join(root, 'tools', `${t}.ts`));
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) files.push(full);
    }
  };
  for (const group of ['apps', 'libs']) {
    for (const project of readdirSync(path.join(root, group))) {
      if (SKIP.has(`${group}/${project}`)) continue;
      if (onlyProject && onlyProject !== `${group}/${project}`) continue;
      const src = path.join(root, group, project, 'src');
      if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
    }
  }
  return files;
}

const options = (filename) => ({
  filename,
  sourceMaps: true,
  swcrc: false,
  configFile: false,
  module: { type: 'commonjs' },
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
    baseUrl: root,
    paths: compilerOptions.paths,
  },
});

async function main() {
  const started = Date.now();
  const stale = onlyProject === 'tools' ? IMAGE_TOOLS.map((t) => `tools/${t}.js`) : [onlyProject ?? ''];
  for (const rel of stale) rmSync(path.join(outDir, rel), { recursive: true, force: true });
  const files = sources();
  let done = 0;
  // A few files at a time: swc is fast, the machine has two cores.
  const queue = [...files];
  async function worker() {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const rel = path.relative(root, file);
      const target = path.join(outDir, rel.replace(/\.ts$/, '.js'));
      const out = await swc.transformFile(file, options(file));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, `${out.code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
      if (out.map) writeFileSync(`${target}.map`, out.map);
      done++;
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()]);
  process.stdout.write(`build: ${done} files compiled to ${path.relative(root, outDir) || '.'} in ${Date.now() - started} ms\n`);
}

main().catch((err) => {
  process.stderr.write(`build failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
