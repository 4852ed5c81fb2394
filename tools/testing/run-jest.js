#!/usr/bin/env node
// Nx's `test` target of one project: Jest on that project alone (its own embedded PostgreSQL and Kafka peer from
// the global setup, on free ports, so two projects can run at once), its results written where Nx caches them
// (.nx-results/test/<project>.json) so that `npm test` can add them up, also when they come from the cache.
const { spawnSync } = require('node:child_process');
const { mkdirSync } = require('node:fs');
const path = require('node:path');

const project = process.argv[2];
if (!project) {
  process.stderr.write('usage: node tools/testing/run-jest.js <project> [jest args...]\n');
  process.exit(2);
}
const root = path.join(__dirname, '..', '..');
const out = path.join(root, '.nx-results', 'test');
mkdirSync(out, { recursive: true });
const jest = path.join(root, 'node_modules', '.bin', 'jest');
const args = ['--ci', '--selectProjects', project, '--json', '--outputFile', path.join(out, `${project}.json`), ...process.argv.slice(3)];
const r = spawnSync(jest, args, { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
