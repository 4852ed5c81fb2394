/**
 * `dtp verify --credential FILE --keys FILE`: an origin credential checked offline (no URL configured, nothing
 * fetched), the summary on success, exit 1 naming the altered member, and usage errors.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { clone, newKey, SigningKey } from '../../../libs/verify/test/synthetic-log';
import { originCredential, signCredential } from '../../../libs/verify/test/credential-fixture';
import { cliEnv, dtp, tempDir } from './support';

describe('dtp verify --credential', () => {
  let key: SigningKey;
  let dir: string;
  let keysFile: string;

  beforeAll(async () => {
    key = await newKey('custody-7');
    dir = tempDir('dtp-credential-');
    keysFile = path.join(dir, 'custody-keys.json');
    writeFileSync(keysFile, JSON.stringify({ keys: [key.publicJwk] }));
  });

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, `${text}\n`);
    return file;
  };
  // No DTP_* URL at all: the run cannot reach anything, so a pass is an offline pass.
  const run = (args: string[]) => dtp(['verify', ...args], { env: cliEnv() });

  it('offline with --keys FILE: exit 0 with the origin, carats, report number and custody entry', async () => {
    const vc = await originCredential(key);
    const file = write('good.jwt', await signCredential(vc, key));
    const r = await run(['--credential', file, '--keys', keysFile]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'Verified the origin credential of https://platform.example.test/id/diamond/c0000000000000000000201: origin BW; 0.90 ct, polished',
    );
    expect(r.stdout).toMatch(/origin:\s+BW/);
    expect(r.stdout).toMatch(/report:\s+7788990011 \(IGI\)/);
    expect(r.stdout).toContain(`custody:      entry ${vc.credentialSubject.custody.entry_hash} at leaf ${vc.credentialSubject.custody.leaf_index}`);
    const json = await run(['--credential', file, '--keys', keysFile, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, kid: 'custody-7', credential: { credentialSubject: { origin_countries: ['BW'] } } });
  });

  it('exit 1 naming what is wrong: a country, the carats, the report number, the signature, the key id', async () => {
    const vc = await originCredential(key);
    const jwt = await signCredential(vc, key);
    const swap = (change: (c: typeof vc) => void) => {
      const c = clone(vc);
      change(c);
      const [h, , s] = jwt.split('.');
      return `${h}.${Buffer.from(JSON.stringify(c)).toString('base64url')}.${s}`;
    };
    const cases: [string, string, RegExp][] = [
      [
        'country',
        swap((c) => (c.credentialSubject.origin_countries = ['RU'])),
        /FAILED \(origin_countries\): origin_countries claims RU but the record's provenance says BW/,
      ],
      ['carats', swap((c) => (c.credentialSubject.carats = '1.90')), /FAILED \(carats\): carats claims 1\.90 but the record says 0\.90/],
      ['report', swap((c) => (c.credentialSubject.grader_report_number = '1')), /FAILED \(grader_report_number\)/],
      ['signature', `${jwt.slice(0, jwt.lastIndexOf('.'))}.${Buffer.from('x').toString('base64url')}`, /FAILED \(signature\)/],
      ['key id', await signCredential(vc, key, { kid: 'unknown-key' }), /FAILED \(key_id\): no published custody key has the kid unknown-key/],
    ];
    for (const [name, text, message] of cases) {
      const r = await run(['--credential', write(`${name}.jwt`, text), '--keys', keysFile]);
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      expect(r.stderr).toMatch(message);
    }
  });

  it('usage errors: a diamond id and --credential together, a missing file, no keys and no platform URL', async () => {
    const both = await run(['01j0k6v8m2x4c9d7f3h5n1p0qr', '--credential', 'x.jwt', '--keys', keysFile]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('either a diamond id or --credential FILE, not both');
    const missing = await run(['--credential', path.join(dir, 'nope.jwt'), '--keys', keysFile]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--credential');
    const nokeys = await run(['--credential', write('k.jwt', 'a.b.c')]);
    expect(nokeys.code).not.toBe(0);
    expect(nokeys.stderr).toContain('no platform URL');
  });
});
