#!/usr/bin/env node
// Installs dependencies when node_modules is missing or older than package-lock.json, so that
// `npm start` and `npm test` work on a fresh clone. Plain Node: it runs before anything is installed.
const { existsSync, statSync } = require('node:fs');
const { execSync } = require('node:child_process');
const path = require('node:path');
const root = path.join(__dirname, '..');
const lock = path.join(root, 'package-lock.json');
const marker = path.join(root, 'node_modules', '.package-lock.json');
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
if (stale) {
  console.log('[ensure-deps] installing dependencies (npm ci) ...');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
