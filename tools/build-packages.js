#!/usr/bin/env node
/**
 * `npm run packages`: builds the three publishable packages into dist/packages/ (docs/sdk.md "Packages"):
 * - `@dtp/sdk` (libs/sdk) and `@dtp/verify` (libs/verify): ESM (`.mjs`) and CommonJS (`.cjs`) from one esbuild bundle
 *   of each entry, their npm dependencies left as imports, plus one bundled `.d.ts` (rollup-plugin-dts: the
 *   declarations of the entry and whatever it takes from `@dtp/domain` inlined, so no path alias is left), copied as
 *   `.d.mts` and `.d.cts` for the two module systems. `@dtp/verify` also gets `dist/dtp-verify.global.js`, the
 *   browser script (one minified IIFE, `window.DtpVerify`, jose and canonicalize inside) that the passport page loads.
 * - `@dtp/cli` (apps/dtp, bin `dtp`): one CommonJS file, `dist/dtp.cjs`. swc compiles each TypeScript file (the
 *   DTOs of `@dtp/domain` need decorator metadata, which esbuild does not emit) and esbuild bundles them, with
 *   `@dtp/domain` inside, `@nestjs/swagger` replaced by its own no-op decorator shim (the DTOs' documentation is of no
 *   use to a CLI), and `@dtp/sdk`, `@dtp/verify` and the npm packages left as requires (its `dependencies`).
 * Why these tools: esbuild is already the workspace's bundler (the passport page's verifier), fast and widely used;
 * rollup-plugin-dts is what tsup and unbuild use for bundled declarations; swc is the workspace's compiler
 * (tools/build.js, Jest). Each package's manifest is its source directory's package.json, checked here: every
 * import the bundle leaves must be one of its `dependencies`, each at the version the workspace installs (the root
 * package.json), and the `@dtp/*` ones at their package's version. Usage:
 *   node tools/build-packages.js [--out DIR] [--pack [--pack-destination DIR]]
 * `--pack` runs `npm pack` in each built package and prints the tarballs' paths (as JSON with --json).
 */
const { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { builtinModules } = require('node:module');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const esbuild = require('esbuild');
const swc = require('@swc/core');

const root = path.join(__dirname, '..');
const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const outRoot = path.resolve(root, arg('--out') ?? 'dist/packages');
const rootManifest = require(path.join(root, 'package.json'));
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const installed = { ...rootManifest.devDependencies, ...rootManifest.dependencies };

/** The packages: where their manifest and sources are, and the directory name under the output. */
const ALL_PACKAGES = [
  { dir: 'sdk', source: 'libs/sdk', entry: 'libs/sdk/src/index.ts' },
  { dir: 'verify', source: 'libs/verify', entry: 'libs/verify/src/index.ts', browser: 'libs/verify/src/browser.ts' },
  { dir: 'cli', source: 'apps/dtp', entry: 'apps/dtp/src/main.ts', bin: 'dtp.cjs' },
];
const only = arg('--only');
const PACKAGES = only ? ALL_PACKAGES.filter((p) => only.split(',').includes(p.dir)) : ALL_PACKAGES;
const manifests = Object.fromEntries(ALL_PACKAGES.map((p) => [p.dir, JSON.parse(readFileSync(path.join(root, p.source, 'package.json'), 'utf8'))]));
const ownVersions = Object.fromEntries(Object.values(manifests).map((m) => [m.name, m.version]));

const isBuiltin = (spec) => spec.startsWith('node:') || builtinModules.includes(spec);
/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * An esbuild plugin that leaves every npm package (and `@dtp/sdk`, `@dtp/verify` where named) as an import and
 * records which; `@dtp/*` path aliases of the workspace otherwise resolve to their sources and are bundled.
 */
function externals(seen, { keepAliases = [], replace = {} } = {}) {
  return {
    name: 'dtp-externals',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (replace[args.path]) return { path: replace[args.path] };
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const pkg = packageOf(args.path);
        if (pkg.startsWith('@dtp/') && !keepAliases.includes(pkg)) return undefined; // a workspace source: bundled
        seen.add(pkg);
        return { path: args.path, external: true };
      });
    },
  };
}

/** Compiles TypeScript with swc as tools/build.js does (decorator metadata), as CommonJS (esbuild then bundles each module lazily: a command's code runs when the command does). */
const swcLoader = {
  name: 'swc-typescript',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const out = await swc.transformFile(args.path, {
        swcrc: false,
        configFile: false,
        sourceMaps: false,
        module: { type: 'commonjs' },
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
          target: 'es2022',
          keepClassNames: true,
        },
      });
      return { contents: out.code, loader: 'js' };
    });
  },
};

/** Fails unless the bundle's imports are exactly the manifest's dependencies, at the versions the workspace uses. */
function checkDependencies(dir, manifest, seen) {
  const declared = Object.keys(manifest.dependencies ?? {});
  const undeclared = [...seen].filter((p) => !declared.includes(p));
  const unused = declared.filter((p) => !seen.has(p));
  const problems = [];
  if (undeclared.length) problems.push(`imports ${undeclared.join(', ')} without declaring them in dependencies`);
  if (unused.length) problems.push(`declares ${unused.join(', ')} in dependencies but never imports them`);
  for (const [pkg, version] of Object.entries(manifest.dependencies ?? {})) {
    const want = ownVersions[pkg] ?? installed[pkg];
    if (version !== want) problems.push(`depends on ${pkg}@${version}, the workspace has ${want}`);
  }
  if (problems.length) throw new Error(`${manifest.name} (${dir}/package.json): ${problems.join('; ')}`);
}

/** One `.d.ts` for the entry (rollup-plugin-dts), its workspace imports (`@dtp/domain`) inlined. */
async function bundleTypes(entry, outDir, manifest) {
  const { rollup } = require('rollup');
  const { dts } = require('rollup-plugin-dts');
  const external = (id) => isBuiltin(id) || Object.keys(manifest.dependencies ?? {}).includes(packageOf(id));
  const bundle = await rollup({
    input: path.join(root, entry),
    external,
    plugins: [dts({ tsconfig: path.join(root, 'tsconfig.base.json'), compilerOptions: { baseUrl: root, paths: compilerOptions.paths, types: ['node'] } })],
    onwarn(warning, warn) {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  const { output } = await bundle.generate({ format: 'es' });
  await bundle.close();
  const text = output[0].code;
  const leftover = text.match(/from ['"](@dtp\/[^'"]+)['"]/);
  if (leftover) throw new Error(`${manifest.name}: the declarations still import ${leftover[1]}`);
  for (const name of ['index.d.ts', 'index.d.mts', 'index.d.cts']) writeFileSync(path.join(outDir, name), text);
}

async function buildLibrary(pkg, manifest, outDir) {
  const seen = new Set();
  const common = {
    entryPoints: [path.join(root, pkg.entry)],
    bundle: true,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: ['node20', 'es2022'],
    write: false,
    legalComments: 'inline',
    logLevel: 'silent',
    tsconfig: path.join(root, 'tsconfig.base.json'),
    plugins: [externals(seen)],
  };
  const [esm, cjs] = await Promise.all([
    esbuild.build({ ...common, format: 'esm', outfile: path.join(outDir, 'index.mjs') }),
    esbuild.build({ ...common, format: 'cjs', outfile: path.join(outDir, 'index.cjs') }),
  ]);
  for (const file of [...esm.outputFiles, ...cjs.outputFiles]) writeFileSync(file.path, file.text);
  checkDependencies(pkg.source, manifest, seen);
  await bundleTypes(pkg.entry, outDir, manifest);
  if (pkg.browser) {
    const browser = await esbuild.build({
      entryPoints: [path.join(root, pkg.browser)],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: ['es2020'],
      minify: true,
      write: false,
      legalComments: 'none',
      logLevel: 'silent',
      tsconfig: path.join(root, 'tsconfig.base.json'),
    });
    writeFileSync(path.join(outDir, 'dtp-verify.global.js'), browser.outputFiles[0].text);
  }
}

/**
 * `@dtp/domain` takes nothing from `@nestjs/common` (its decorators come from class-validator, class-transformer and
 * @nestjs/swagger, whose browser shim the CLI bundles): the CLI does not depend on NestJS. Fails when the domain
 * starts importing it.
 */
function checkNestImports() {
  const walk = (dir) =>
    require('node:fs')
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path.join(dir, e.name)] : [],
      );
  for (const file of walk(path.join(root, 'libs', 'domain', 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@nestjs\/common'/g)) {
      const names = m[1]
        ? []
        : m[2]
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n && !n.startsWith('type '));
      if (names.length)
        throw new Error(`${path.relative(root, file)} imports ${names.join(', ')} from @nestjs/common: @dtp/cli would need NestJS (tools/build-packages.js)`);
    }
  }
}

async function buildCli(pkg, manifest, outDir) {
  const seen = new Set();
  // Not in the package's `exports`: found beside its package.json (the file @nestjs/swagger ships for browser builds).
  const shim = path.join(path.dirname(require.resolve('@nestjs/swagger/package.json', { paths: [root] })), 'dist', 'extra', 'swagger-shim.js');
  checkNestImports();
  const result = await esbuild.build({
    entryPoints: [path.join(root, pkg.entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: ['node20'],
    outfile: path.join(outDir, pkg.bin),
    write: false,
    banner: { js: '#!/usr/bin/env node' },
    legalComments: 'inline',
    logLevel: 'silent',
    tsconfig: path.join(root, 'tsconfig.base.json'),
    plugins: [externals(seen, { keepAliases: ['@dtp/sdk', '@dtp/verify'], replace: { '@nestjs/swagger': shim } }), swcLoader],
  });
  writeFileSync(path.join(outDir, pkg.bin), result.outputFiles[0].text, { mode: 0o755 });
  checkDependencies(pkg.source, manifest, seen);
}

async function main() {
  const started = Date.now();
  const tarballs = [];
  for (const pkg of PACKAGES) {
    const manifest = manifests[pkg.dir];
    const pkgDir = path.join(outRoot, pkg.dir);
    rmSync(pkgDir, { recursive: true, force: true });
    const outDir = path.join(pkgDir, 'dist');
    mkdirSync(outDir, { recursive: true });
    if (pkg.bin) await buildCli(pkg, manifest, outDir);
    else await buildLibrary(pkg, manifest, outDir);
    writeFileSync(path.join(pkgDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    copyFileSync(path.join(root, pkg.source, 'CHANGELOG.md'), path.join(pkgDir, 'CHANGELOG.md'));
    if (process.argv.includes('--pack')) {
      const dest = path.resolve(root, arg('--pack-destination') ?? outRoot);
      mkdirSync(dest, { recursive: true });
      const [packed] = JSON.parse(
        execFileSync('npm', ['pack', '--json', '--pack-destination', dest], { cwd: pkgDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      tarballs.push({
        name: manifest.name,
        version: manifest.version,
        tarball: path.join(dest, packed.filename),
        files: packed.files.map((f) => f.path),
        size: packed.size,
      });
    }
  }
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ out: outRoot, tarballs }, null, 2)}\n`);
  else {
    process.stdout.write(
      `built ${PACKAGES.map((p) => manifests[p.dir].name).join(', ')} into ${path.relative(root, outRoot)} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    for (const t of tarballs) process.stdout.write(`  ${t.tarball} (${t.files.length} files, ${t.size} bytes)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
