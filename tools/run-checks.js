#!/usr/bin/env node
// `npm test`: every project's lint, typecheck and test targets through Nx (`nx run-many`), two at a time on the
// two cores, cached by their inputs (a second run with nothing changed replays the results from .nx/cache), then
// one closing line with the tests of every project added up: "tests: N passed, N failed, N skipped".
// Extra arguments go to `nx run-many` (e.g. `npm test -- --projects=platform,search` or `--skip-nx-cache`).
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const results = path.join(root, '.nx-results', 'test');
// Results of this run only: Nx writes them (run) or restores them (cache hit) for every test target it runs.
rmSync(results, { recursive: true, force: true });

const started = Date.now();
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
// Plain text when the output is a file or a pipe (CI logs), colours on a terminal.
if (!process.stdout.isTTY) env.FORCE_COLOR = '0';
const nx = path.join(root, 'node_modules', '.bin', 'nx');
const run = spawnSync(nx, ['run-many', '-t', 'lint', 'typecheck', 'test', '--outputStyle=stream', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env,
});

let passed = 0;
let failed = 0;
let skipped = 0;
let projects = 0;
/** What failed, with the first lines of why: the end of a long CI log is often all anyone sees of it. */
const failures = [];
const firstLines = (text, n) =>
  String(text)
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(0, n);
if (existsSync(results)) {
  for (const file of readdirSync(results).filter((f) => f.endsWith('.json'))) {
    const r = JSON.parse(readFileSync(path.join(results, file), 'utf8'));
    projects++;
    passed += r.numPassedTests;
    failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
    skipped += r.numPendingTests + r.numTodoTests;
    const project = file.replace(/\.json$/, '');
    for (const suite of r.testResults ?? []) {
      const where = path.relative(root, suite.name);
      const failedTests = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const a of failedTests) failures.push({ project, where, title: a.fullName, why: firstLines(a.failureMessages.join('\n'), 8) });
      // a suite that failed outside its tests (it did not load, a hook threw)
      if (failedTests.length === 0 && suite.status === 'failed')
        failures.push({ project, where, title: '(the suite itself)', why: firstLines(suite.message, 8) });
    }
  }
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  process.stdout.write(`\n==> failed tests (${failures.length})\n`);
  for (const f of failures.slice(0, 20)) {
    process.stdout.write(`- ${f.project}: ${f.where}: ${f.title}\n`);
    for (const line of f.why) process.stdout.write(`    ${line}\n`);
  }
  if (failures.length > 20) process.stdout.write(`  ... and ${failures.length - 20} more (.nx-results/test/*.json)\n`);
}
process.stdout.write(`\n==> ${projects} test projects, ${secs} s (nx exit ${run.status})\n`);
process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(run.status === 0 && failed === 0 && projects > 0 ? 0 : run.status || 1);
