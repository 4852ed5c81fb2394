#!/usr/bin/env node
// `npm test`: lint, type check, then every test project (unit and integration, one Jest run against a real
// PostgreSQL). Stops at the first failing step and exits non-zero.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const root = path.join(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const steps = [
  ['lint', bin('eslint'), ['--max-warnings=0', '.']],
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['tests', bin('jest'), ['--ci', ...process.argv.slice(2)]],
];
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
for (const [name, cmd, args] of steps) {
  const started = Date.now();
  process.stdout.write(`\n==> ${name}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    process.stdout.write(`\n==> ${name} FAILED after ${secs} s\n`);
    process.exit(r.status ?? 1);
  }
  process.stdout.write(`==> ${name} passed in ${secs} s\n`);
}
