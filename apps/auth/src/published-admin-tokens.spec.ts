import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LIVE_ADMIN_TOKEN_MIN_LENGTH, PUBLISHED_ADMIN_TOKENS } from './config';

/**
 * Production refuses every admin token the repository publishes (config.ts, PUBLISHED_ADMIN_TOKENS): this scans the
 * tracked files for admin-token literals long enough to pass the length rule, and values given to AUTH_ADMIN_TOKEN
 * or ADMIN_TOKEN in docs, manifests and scripts, and fails when one is not on the list. A new example written
 * into a doc can never become a working production credential unnoticed.
 */
const root = path.join(__dirname, '..', '..', '..');

function trackedTextFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  return files.filter((f) => /\.(md|ya?ml|sh|ts|js|mjs|json|env|txt)$/.test(f) && !f.startsWith('openapi/') && f !== 'package-lock.json');
}

describe('admin tokens published in the repository', () => {
  const found = new Map<string, string>();
  const where = new Map<string, Set<string>>();
  const note = (token: string, file: string) => {
    found.set(token, file);
    where.set(token, (where.get(token) ?? new Set()).add(file));
  };
  beforeAll(() => {
    for (const file of trackedTextFiles()) {
      let text: string;
      try {
        text = readFileSync(path.join(root, file), 'utf8');
      } catch {
        continue; // listed but not in this checkout
      }
      for (const m of text.matchAll(/[A-Za-z0-9][A-Za-z0-9_-]*admin[-_]token[A-Za-z0-9_-]*/g)) {
        if (m[0].length >= LIVE_ADMIN_TOKEN_MIN_LENGTH) note(m[0], file);
      }
      if (/^(README\.md|docs\/|k8s\/|deploy\/(?!checks\/)|tools\/start\.ts|tools\/run-kafka-mode\.ts)/.test(file)) {
        for (const m of text.matchAll(/\b(?:AUTH_)?ADMIN_TOKEN\s*[=:]-?\s*['"]?([A-Za-z0-9][A-Za-z0-9+/_.-]*)/g)) {
          if (m[1].length >= LIVE_ADMIN_TOKEN_MIN_LENGTH) note(m[1], file);
        }
      }
    }
  });

  it('finds the examples it knows of (the scan works)', () => {
    expect(found.has('bench-admin-token-0123456789abcdefghijklmnop')).toBe(true);
    // ... in the docs too, not only in the list itself.
    expect([...(where.get('kind-dev-admin-token-0123456789abcdef') ?? [])]).toContain('docs/auth.md');
  });

  it('are all refused in production', () => {
    const unlisted = [...found].filter(([token]) => !PUBLISHED_ADMIN_TOKENS.includes(token)).map(([token, file]) => `${token} (${file})`);
    expect(unlisted).toEqual([]);
  });
});
