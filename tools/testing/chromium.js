// A real browser for tests: Debian's `chromium` package, installed with apt-get when missing (like kcat for the
// Kafka peer, tools/kafka-peer.mjs), driven by playwright-core (Playwright's own browser download cannot reach the
// network here). The install happens once per machine and run: a lock file serialises concurrent test files and
// processes, and later calls only see that /usr/bin/chromium exists.
'use strict';
const { spawnSync } = require('node:child_process');
const { closeSync, existsSync, openSync, rmSync, statSync, unlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const CHROMIUM_PATH = process.env.DTP_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that work here (TOOLCHAIN.md "A real browser in tests"): root needs --no-sandbox; nothing phones home. */
const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]);

const LOCK = path.join(tmpdir(), 'dtp-chromium-install.lock');

function say(log, line) {
  (log ?? ((l) => process.stderr.write(`${l}\n`)))(`[chromium] ${line}`);
}

function apt(log, args) {
  const r = spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 600_000,
  });
  if (r.status !== 0) say(log, `apt-get ${args.join(' ')} failed: ${(r.stderr ?? '').toString().slice(-400)}`);
  return r.status === 0;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Takes the install lock (waiting for another process's install); a lock older than 15 minutes is stale. */
async function withLock(fn) {
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > 15 * 60_000) unlinkSync(LOCK);
      } catch {
        // gone meanwhile
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/**
 * Makes sure Debian's chromium is at CHROMIUM_PATH: installs it with apt-get when missing (root only; otherwise a
 * clear error naming the command to run). Resolves to its path.
 * @param {(line: string) => void} [log]
 * @returns {Promise<string>}
 */
async function ensureChromium(log) {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error(
      `chromium is not installed at ${CHROMIUM_PATH} and this is not root: run \`apt-get install -y chromium\` (the passport browser tests need it)`,
    );
  }
  return withLock(async () => {
    if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH; // another process installed it while we waited
    say(log, 'not found: installing the Debian package (apt-get install -y chromium, about a minute)');
    if (!apt(log, ['install', '-y', '--no-install-recommends', 'chromium'])) {
      apt(log, ['update']);
      if (!apt(log, ['install', '-y', '--no-install-recommends', 'chromium'])) {
        throw new Error('could not install chromium with apt-get: the passport browser tests cannot run (install it: apt-get install -y chromium)');
      }
    }
    if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium was installed but ${CHROMIUM_PATH} is missing`);
    say(log, 'installed');
    return CHROMIUM_PATH;
  });
}

/**
 * Launches chromium through playwright-core with the flags above. `chromium.launch` gives every launch a fresh
 * temporary profile (user-data-dir) that Playwright deletes when the browser closes; pages for axe-core come from
 * `browser.newContext()`. Close the browser in the test's afterAll.
 * @param {{log?: (line: string) => void}} [opts]
 * @returns {Promise<import('playwright-core').Browser>}
 */
async function launchChromium(opts = {}) {
  const executablePath = await ensureChromium(opts.log);
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS] });
}

// `node tools/testing/chromium.js`: install (when missing) and print the path.
module.exports = { CHROMIUM_PATH, CHROMIUM_ARGS, ensureChromium, launchChromium };

if (require.main === module) {
  ensureChromium().then(
    (p) => process.stdout.write(`${p}\n`),
    (err) => {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    },
  );
}
