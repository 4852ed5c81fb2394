#!/usr/bin/env node
/**
 * Summary of a V8 .cpuprofile (e.g. from BENCH_CPU_PROF_DIR=dir npm run bench -- platform):
 *   node bench/cpuprofile-summary.mjs <file.cpuprofile> [top=25] [--callers=<regex>]
 * prints self time (percent of the sampled time, ms) by function and by package (node_modules package, node:
 * module or repository file), and with --callers the call chains (up to 8 frames) that lead to the functions whose
 * "name url" matches the regex. Given a sampling heap profile (.heapprofile, BENCH_PROFILE=heap), the same tables
 * count the bytes each function allocated instead.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
const callersOf = args.find((a) => a.startsWith('--callers='))?.slice('--callers='.length);
if (!file) {
  process.stderr.write('usage: node bench/cpuprofile-summary.mjs <file.cpuprofile> [top] [--callers=<regex>]\n');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, 'utf8'));
// A sampling heap profile (.heapprofile: a tree under `head`, bytes per node) is flattened into the CPU profile's
// shape (nodes with child ids), its bytes taking the place of the microseconds.
const heap = profile.head !== undefined;
if (heap) {
  profile.nodes = [];
  const walk = (n) => {
    profile.nodes.push({ ...n, children: (n.children ?? []).map((c) => c.id) });
    for (const c of n.children ?? []) walk(c);
  };
  walk(profile.head);
}
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
let total = 0;
if (heap) {
  for (const n of profile.nodes) if (n.selfSize > 0) self.set(n.id, n.selfSize);
  total = profile.nodes.reduce((sum, n) => sum + n.selfSize, 0);
} else {
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
}
const unit = heap ? 'MB' : 'ms';

const where = (url) => {
  if (!url) return '(native)';
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(apps|libs|bench|tools)\//, '$1/');
};
const frame = (cf) => `${cf.functionName || '(anonymous)'} ${where(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
const add = (map, key, t) => map.set(key, (map.get(key) ?? 0) + t);
const print = (title, map) => {
  process.stdout.write(`\n## ${title}\n`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const amount = heap ? (t / 1e6).toFixed(1) : (t / 1000).toFixed(0);
    process.stdout.write(`${((100 * t) / total).toFixed(1).padStart(5)}% ${amount.padStart(7)} ${unit}  ${key}\n`);
  }
};

const byFunction = new Map();
const byPackage = new Map();
const chains = new Map();
const wanted = callersOf ? new RegExp(callersOf) : null;
for (const [id, t] of self) {
  const cf = nodes.get(id).callFrame;
  add(byFunction, frame(cf), t);
  add(byPackage, where(cf.url), t);
  if (wanted?.test(`${cf.functionName} ${cf.url}`)) {
    const chain = [frame(cf)];
    for (let p = parent.get(id); p !== undefined && chain.length < Number(process.env.CHAIN_DEPTH ?? 8); p = parent.get(p))
      chain.push(frame(nodes.get(p).callFrame));
    add(chains, chain.join('\n        < '), t);
  }
}
process.stdout.write(heap ? `allocated ${(total / 1e6).toFixed(1)} MB (sampled)\n` : `sampled ${(total / 1e6).toFixed(2)} s\n`);
const what = heap ? 'bytes allocated' : 'self time';
print(`${what} by function`, byFunction);
print(`${what} by package / file`, byPackage);
if (wanted) print(`call chains of ${callersOf}`, chains);
