/**
 * The committed generated types (libs/sdk/src/generated/<service>.ts) are what tools/sdk-generate.ts makes of the
 * committed OpenAPI documents (openapi/<service>.json): run `npm run sdk:generate` after `npm run openapi`.
 * The generator runs as a child process (openapi-typescript needs an ES module Jest cannot load).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..', '..', '..');
const generatedDir = path.join(root, 'libs', 'sdk', 'src', 'generated');

function generator(...args: string[]) {
  const r = spawnSync(process.execPath, ['-r', './tools/register.js', 'tools/sdk-generate.ts', ...args], { cwd: root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('libs/sdk/src/generated', () => {
  it('matches the committed openapi/*.json (else run `npm run sdk:generate`)', () => {
    const check = generator('--check');
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  it('the check names a file that differs, and writing makes it current again', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sdk-generated-'));
    cpSync(generatedDir, dir, { recursive: true });
    writeFileSync(path.join(dir, 'gis.ts'), `${readFileSync(path.join(dir, 'gis.ts'), 'utf8')}// edited by hand\n`);
    const stale = generator('--check', '--out-dir', dir);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/out of date: .*gis\.ts\n/);
    expect(stale.stderr).not.toMatch(/platform\.ts/);
    expect(generator('--out-dir', dir).code).toBe(0);
    expect(generator('--check', '--out-dir', dir).code).toBe(0);
  });

  it('holds the paths of every operation of the documents', () => {
    for (const service of ['auth', 'platform', 'search', 'gis']) {
      const doc = JSON.parse(readFileSync(path.join(root, 'openapi', `${service}.json`), 'utf8')) as { paths: Record<string, unknown> };
      const types = readFileSync(path.join(generatedDir, `${service}.ts`), 'utf8');
      for (const p of Object.keys(doc.paths)) expect([service, p, types.includes(`    "${p}": {`)]).toEqual([service, p, true]);
    }
  });

  it('a bad argument is a usage error (exit 2)', () => {
    const bad = generator('--bogus');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage: npm run sdk:generate');
  });
});
