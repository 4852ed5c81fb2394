import { CompactSign } from 'jose';
import type { DiamondOriginCredential } from '@dtp/domain';
import { verifyCredential, type CredentialFailureCode } from '../src';
import { clone, newKey, SigningKey, SyntheticLog } from './synthetic-log';

const MINE = 'm0000000000000000000101';
const CUT = 'c0000000000000000000101';
const BASE = 'https://platform.example.test';

/** Signs a credential as search does: a compact JWS of its JSON, header {alg, kid, typ: vc+jwt, cty: vc}. */
async function signed(vc: unknown, key: SigningKey, header: Record<string, unknown> = {}): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(vc)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'vc+jwt', cty: 'vc', ...header })
    .sign(key.privateKey);
}

/** Swaps the JWT's payload for `vc` and keeps the old signature (an altered credential). */
function altered(jwt: string, vc: unknown): string {
  const [h, , s] = jwt.split('.');
  return `${h}.${Buffer.from(JSON.stringify(vc)).toString('base64url')}.${s}`;
}

describe('verifyCredential (offline, with the custody keys alone)', () => {
  let key: SigningKey;
  let other: SigningKey;
  let vc: DiamondOriginCredential;
  let jwt: string;
  const keys = () => ({ keys: [key.publicJwk] });

  beforeAll(async () => {
    key = await newKey('custody-key-1');
    other = await newKey('somebody-else');
    const log = new SyntheticLog();
    log.change(MINE, 'registered', { fields: { lifecycle_state: 'rough', provenance: { is_country_code_available: true, country_code: 'BW' } } });
    log.change(MINE, 'polished');
    log.change(CUT, 'registered', {
      parent: MINE,
      fields: {
        lifecycle_state: 'polished',
        rough: {},
        polished: { carats: '1.21' },
        provenance: { is_country_code_available: true, country_code: 'BW' },
        grading: [{ grader_report_number: '2211223344', grading_lab: 'GIA' }],
      },
    });
    log.change(MINE, 'file_attached'); // a later leaf: the proof has more than one step
    const answer = await log.answer(CUT, key);
    const latest = answer.entries.at(-1)!;
    vc = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'DiamondOriginCredential'],
      issuer: BASE,
      validFrom: '2026-01-05T09:00:00Z',
      credentialSubject: {
        id: `${BASE}/id/diamond/${CUT}`,
        origin_countries: ['BW'],
        origin_status: 'confirmed',
        carats: '1.21',
        lifecycle_state: 'polished',
        grader_report_number: '2211223344',
        grading_lab: 'GIA',
        custody: {
          entry: latest.entry,
          entry_hash: latest.entry_hash,
          leaf_index: latest.leaf_index,
          inclusion_proof: latest.inclusion_proof,
          checkpoint: answer.checkpoint,
        },
      },
      evidence: [{ type: ['DiamondRecordEvidence'], record: log.record(CUT)! }],
    };
    jwt = await signed(vc, key);
  });

  it('passes: signature, checkpoint, entry hash, inclusion proof, record and every claim', async () => {
    const r = await verifyCredential(jwt, { keys: keys() });
    expect(r).toMatchObject({ ok: true, kid: 'custody-key-1', checkpoint_kid: 'custody-key-1' });
    if (r.ok) expect(r.summary).toContain('origin BW; 1.21 ct, polished, report 2211223344 (GIA)');
  });

  type Tamper = [string, (c: DiamondOriginCredential) => void, CredentialFailureCode, RegExp];
  const tampers: Tamper[] = [
    ['country', (c) => (c.credentialSubject.origin_countries = ['ZA']), 'origin_countries', /origin_countries claims ZA but the record's provenance says BW/],
    ['carats', (c) => (c.credentialSubject.carats = '2.21'), 'carats', /carats claims 2\.21 but the record says 1\.21/],
    [
      'report number',
      (c) => (c.credentialSubject.grader_report_number = '9999999999'),
      'grader_report_number',
      /grader_report_number claims 9999999999 .* says 2211223344/,
    ],
    ['lifecycle state', (c) => (c.credentialSubject.lifecycle_state = 'rough'), 'lifecycle_state', /lifecycle_state claims rough but the record says polished/],
    [
      'proof',
      (c) => (c.credentialSubject.custody.inclusion_proof[0] = 'f'.repeat(64)),
      'proof',
      /inclusion proof of leaf \d+ does not lead to the checkpoint's root/,
    ],
    [
      'checkpoint root',
      (c) => (c.credentialSubject.custody.checkpoint.root_hash = 'e'.repeat(64)),
      'checkpoint',
      /checkpoint does not verify: the checkpoint's fields are not what key custody-key-1 signed/,
    ],
    [
      'checkpoint signature',
      (c) => (c.credentialSubject.custody.checkpoint.jws = c.credentialSubject.custody.checkpoint.jws.replace(/\.[^.]+$/, '.AAAA')),
      'checkpoint',
      /checkpoint does not verify/,
    ],
    ['entry', (c) => (c.credentialSubject.custody.entry.occurred_at = '2030-01-01T00:00:00.000Z'), 'entry_hash', /custody entry was altered/],
    ['record', (c) => ((c.evidence[0].record as Record<string, unknown>).lifecycle_state = 'destroyed'), 'record', /record in the evidence hashes to/],
    ['pending with a country', (c) => (c.credentialSubject.origin_status = 'pending'), 'origin_countries', /claims BW while origin_status is pending/],
  ];

  it.each(tampers)('%s altered after signing: fails naming it (and that the signature breaks)', async (_what, change, code, message) => {
    const c = clone(vc);
    change(c);
    const r = await verifyCredential(altered(jwt, c), { keys: keys() });
    expect(r).toMatchObject({ ok: false, failure: { code } });
    if (!r.ok) {
      expect(r.failure.message).toMatch(message);
      expect(r.failure.message).toContain("credential's signature does not verify either");
    }
  });

  it.each(tampers)('%s wrong but signed (an issuer signing a wrong claim): fails naming it', async (_what, change, code, message) => {
    const c = clone(vc);
    change(c);
    const r = await verifyCredential(await signed(c, key), { keys: keys() });
    expect(r).toMatchObject({ ok: false, failure: { code } });
    if (!r.ok) {
      expect(r.failure.message).toMatch(message);
      expect(r.failure.message).not.toContain("credential's signature does not verify either");
    }
  });

  it('signature: a changed signature, or a payload re-signed by another key under the published kid, fails as signature', async () => {
    const [h, p] = jwt.split('.');
    const r1 = await verifyCredential(`${h}.${p}.${Buffer.from('forged').toString('base64url')}`, { keys: keys() });
    expect(r1).toMatchObject({
      ok: false,
      failure: { code: 'signature', message: expect.stringContaining('does not verify with published key custody-key-1') },
    });
    const impostor = { ...other, kid: key.kid };
    const r2 = await verifyCredential(await signed(vc, impostor), { keys: keys() });
    expect(r2).toMatchObject({ ok: false, failure: { code: 'signature' } });
  });

  it('key id: a kid the published keys lack, or none, fails as key_id', async () => {
    const r1 = await verifyCredential(await signed(vc, other), { keys: keys() });
    expect(r1).toMatchObject({
      ok: false,
      failure: { code: 'key_id', message: expect.stringContaining('no published custody key has the kid somebody-else') },
    });
    const r2 = await verifyCredential(await signed(vc, key, { kid: undefined }), { keys: keys() });
    expect(r2).toMatchObject({ ok: false, failure: { code: 'key_id', message: expect.stringContaining('names no key') } });
    // The same credential verifies once its key is published (a custody key set may hold several).
    expect(await verifyCredential(await signed(vc, other), { keys: { keys: [key.publicJwk, other.publicJwk] } })).toMatchObject({
      ok: true,
      kid: 'somebody-else',
    });
  });

  it('format: not a JWT, another typ, not a VC 2.0 credential', async () => {
    expect(await verifyCredential('not-a-jwt', { keys: keys() })).toMatchObject({ ok: false, failure: { code: 'format' } });
    expect(await verifyCredential(await signed(vc, key, { typ: 'JWT' }), { keys: keys() })).toMatchObject({
      ok: false,
      failure: { code: 'format', message: expect.stringContaining('"vc+jwt"') },
    });
    const v1 = { ...clone(vc), '@context': ['https://www.w3.org/2018/credentials/v1'] };
    expect(await verifyCredential(await signed(v1, key), { keys: keys() })).toMatchObject({
      ok: false,
      failure: { code: 'format', message: expect.stringContaining('VC 2.0') },
    });
  });

  it("online: a record served now that is not the credential's fails as record", async () => {
    const now = { ...clone(vc.evidence[0].record), version_id: 'newer' };
    expect(await verifyCredential(jwt, { keys: keys(), record: vc.evidence[0].record })).toMatchObject({ ok: true });
    expect(await verifyCredential(jwt, { keys: keys(), record: now })).toMatchObject({ ok: false, failure: { code: 'record' } });
  });
});
