#!/usr/bin/env node
// `node tools/structure.mjs [DIR ...]`: figures of the code's shape, for before/after comparisons of a reshaping.
// Per folder given (default: the whole tree, apps/platform, libs/events, libs/domain) it prints one JSON line:
//   files, lines: TypeScript sources (tests, fixtures, generated code and migrations left out);
//   over_300: files over 300 lines; biggest: the largest file; biggest_folder: the largest folder of files;
//   upward_imports: imports that run from a lower layer to a higher one (a lib importing an app, or a lib
//   importing a lib above it: domain < service-kit < database, blob-store < events < auth-guard < service-host;
//   sdk and verify stand on domain only), with the first few listed;
//   long_lines: lines over 160 characters.
// Duplicated blocks (exact clones of 6 lines or more outside tests, generated code and migrations) are counted with jscpd:
//   npx -y jscpd@4 --min-lines 6 --format typescript --silent \
//     --ignore '**/*.spec.ts,**/test/**,**/generated/**,**/migrations/**,**/node_modules/**,**/.nx/**,**/dist/**' DIR
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const LAYER = { domain: 0, 'service-kit': 1, database: 2, 'blob-store': 2, events: 3, 'auth-guard': 4, 'service-host': 5, sdk: 1, verify: 1, testing: 6 };
const APP = 7;

function layerOf(file) {
  const m = /^libs\/([^/]+)\//.exec(file);
  if (m) return LAYER[m[1]] ?? 6;
  if (file.startsWith('apps/')) return APP;
  return undefined; // tools, bench, e2e, deploy: harnesses above everything
}

function targetOf(from, spec) {
  const alias = /^@dtp\/([a-z-]+)/.exec(spec);
  if (alias) {
    const name = alias[1];
    if (['auth', 'platform', 'search', 'gis', 'dtp'].includes(name)) return `apps/${name}/src/app.ts`;
    if (name === 'test-stack') return 'tools/testing/test-stack.ts';
    return `libs/${name}/src/index.ts`;
  }
  if (spec.startsWith('.')) return path.normalize(path.join(path.dirname(from), spec));
  return undefined;
}

const skip = (f) => /(\.spec\.ts|\.d\.ts)$/.test(f) || /(^|\/)(test|generated|migrations|node_modules)\//.test(f);

function measure(dir) {
  const files = execFileSync('git', ['ls-files', '--', dir === '.' ? '*.ts' : `${dir}/*.ts`, dir === '.' ? '**/*.ts' : `${dir}/**/*.ts`], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !skip(f));
  const unique = [...new Set(files)];
  let lines = 0;
  let longLines = 0;
  const sizes = [];
  const folders = new Map();
  const upward = [];
  for (const f of unique) {
    const text = readFileSync(f, 'utf8');
    const ls = text.split('\n');
    lines += ls.length;
    longLines += ls.filter((l) => l.length > 160).length;
    sizes.push([f, ls.length]);
    folders.set(path.dirname(f), (folders.get(path.dirname(f)) ?? 0) + ls.length);
    const from = layerOf(f);
    if (from === undefined) continue;
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
      const target = targetOf(f, m[1]);
      if (!target) continue;
      const to = layerOf(target);
      if (to !== undefined && to > from) upward.push(`${f} -> ${m[1]}`);
    }
  }
  sizes.sort((a, b) => b[1] - a[1]);
  const biggestFolder = [...folders].sort((a, b) => b[1] - a[1])[0];
  return {
    dir,
    files: unique.length,
    lines,
    over_300: sizes.filter(([, n]) => n > 300).length,
    biggest: sizes[0] ? `${sizes[0][0]} (${sizes[0][1]})` : null,
    biggest_folder: biggestFolder ? `${biggestFolder[0]} (${biggestFolder[1]})` : null,
    long_lines: longLines,
    upward_imports: upward.length,
    upward_examples: upward.slice(0, 5),
  };
}

const dirs = process.argv.slice(2);
for (const dir of dirs.length > 0 ? dirs : ['.', 'apps/platform', 'libs/events', 'libs/domain']) console.log(JSON.stringify(measure(dir)));
