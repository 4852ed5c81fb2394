import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { decodeProtectedHeader } from 'jose';
import type { CustodyAnswer, DiamondOriginCredential, DiamondV1 } from '@dtp/domain';
import { participantWithToken, type TestStack } from '@dtp/testing';
import { verifyCredential, type CustodyKeys } from '@dtp/verify';
import { eventually } from './support';
import { platformCall, publicGet, shipAndAccept } from './passport-support';
import { originStack, searchGet, shipmentJourney, ShipmentJourney } from './origin-support';

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as DiamondOriginCredential;

/** The VC 2.0 JSON Schema (fixtures/vc), compiled with ajv: the credential's shape checked by a peer of @dtp/verify. */
function vcSchemaErrors(doc: unknown): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'vc', 'verifiable-credential-2.0.schema.json'), 'utf8')) as object);
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/**
 * The credential's data model checked by a peer nobody here wrote: Digital Bazaar's VC library
 * (@digitalbazaar/vc, `_checkCredential`: the credentials context, `type`, `issuer`, subjects, `validFrom`/`validUntil`
 * as date-times and in force now). It is ESM only, so it runs in a child process.
 */
function vcLibraryCheck(vc: unknown): string {
  const script =
    "import { _checkCredential } from '@digitalbazaar/vc'; let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {" +
    " try { _checkCredential({ credential: JSON.parse(s), mode: 'verify' }); process.stdout.write('valid'); } catch (e) { process.stdout.write(String(e.message)); } });";
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(vc),
    encoding: 'utf8',
    cwd: path.join(__dirname, '..', '..', '..'),
  });
  return run.stdout || run.stderr;
}

/** The origin credential (DESIGN.md "Looking a diamond up by what people hold") against the real services. */
describe('GET /v1/diamonds/{id}/credential and /passport/{share_id}/credential', () => {
  let stack: TestStack;
  let j: ShipmentJourney;
  let keys: CustodyKeys;

  beforeAll(async () => {
    stack = await originStack();
    j = await shipmentJourney(stack, { country: 'BW', reportNumber: '2211223344' });
    keys = (await (await fetch(`${stack.urls.platform}/.well-known/custody-keys.json`)).json()) as CustodyKeys;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it("is a VC 2.0 JWT signed with the custody key: origin from the producer's mine through the shipment and the polish, the claims, the custody entry", async () => {
    const res = await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}/credential`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/vc\+jwt/);
    const header = decodeProtectedHeader(res.text);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'vc+jwt', cty: 'vc' });
    expect(keys.keys.map((k) => k.kid)).toContain(header.kid);
    const vc = payloadOf(res.text);
    expect(vcSchemaErrors(vc)).toEqual([]);
    expect(vcLibraryCheck(vc)).toBe('valid');
    // The peer can refuse: without an issuer, or valid only from tomorrow.
    expect(vcLibraryCheck({ ...vc, issuer: undefined })).toBe('"issuer" property is required.');
    expect(vcLibraryCheck({ ...vc, validFrom: new Date(Date.now() + 86_400_000).toISOString() })).toMatch(/is before "validFrom"/);
    const base = stack.urls.platform!.replace(/\/+$/, '');
    expect(vc).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'DiamondOriginCredential'],
      issuer: base,
      credentialSubject: {
        id: `${base}/id/diamond/${j.polished.diamond_id}`,
        origin_countries: ['BW'],
        origin_status: 'confirmed',
        carats: '1.21',
        lifecycle_state: 'polished',
        grader_report_number: '2211223344',
        grading_lab: 'GIA',
      },
    });
    // Tied to the diamond's latest entry in the custody answer, under a signed checkpoint.
    const answer = JSON.parse((await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}/custody`)).text) as CustodyAnswer;
    const latest = answer.entries.filter((e) => e.entry.diamond_id === j.polished.diamond_id).at(-1)!;
    expect(vc.credentialSubject.custody).toMatchObject({ entry_hash: latest.entry_hash, leaf_index: latest.leaf_index, entry: latest.entry });
    expect(vc.credentialSubject.custody.checkpoint.tree_size).toBeGreaterThan(latest.leaf_index);
    const record = JSON.parse((await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}`)).text) as DiamondV1;
    expect(vc.evidence[0].record).toEqual(record);
    // Verified offline with the keys alone, and online against the record served now.
    const offline = await verifyCredential(res.text, { keys });
    expect(offline).toMatchObject({ ok: true, kid: header.kid });
    expect(await verifyCredential(res.text, { keys, record })).toMatchObject({ ok: true });
  });

  it('only with a search token (non-participants), as the custody route: none or a platform token 401, an unknown diamond 404 JSON', async () => {
    const none = await fetch(`${stack.urls.search}/v1/diamonds/${j.polished.diamond_id}/credential`);
    expect(none.status).toBe(401);
    // Participants get no search token at all (auth refuses it); their platform token is for another audience.
    const p = await searchGet(stack, j.manufacturer, `/v1/diamonds/${j.polished.diamond_id}/credential`);
    expect(p.status).toBe(401);
    expect(p.headers.get('content-type')).toMatch(/^application\/json/);
    const unknown = await searchGet(stack, j.reader, '/v1/diamonds/01jzzzzzzzzzzzzzzzzzzzzzzz/credential');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(unknown.text)).toEqual({ message: 'diamond 01jzzzzzzzzzzzzzzzzzzzzzzz not found' });
  });

  it('through a live share link, without a token: the same credential; a revoked or unknown link: 404', async () => {
    const res = await publicGet(stack, `/passport/${j.share.share_id}/credential`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/vc\+jwt/);
    const vc = payloadOf(res.text);
    expect(vc.credentialSubject).toMatchObject({ id: expect.stringContaining(j.polished.diamond_id), origin_countries: ['BW'] });
    expect(await verifyCredential(res.text, { keys })).toMatchObject({ ok: true });
    const unknown = await publicGet(stack, '/passport/AAAAAAAAAAAAAAAAAAAAAA/credential');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({ message: 'passport not found' });
  });

  it("a manufacturer's own rough (provenance not confirmed) says so and claims no country", async () => {
    const maker = await participantWithToken(stack, 'manufacturer', 'platform', { name: `Own Rough ${process.pid}` });
    const rough = await platformCall<DiamondV1>(stack, maker, 'POST', '/diamonds/rough/create', {
      box_id: `OWN-${Date.now()}`,
      participant_id: 'OWN-1',
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: 1.5 },
    });
    const jwt = await eventually(async () => {
      const r = await searchGet(stack, j.reader, `/v1/diamonds/${rough.diamond_id}/credential`);
      if (r.status === 409 || r.status === 404) return undefined;
      return r.status === 200 ? r.text : Promise.reject(new Error(`${r.status} ${r.text}`));
    }, 'a credential once the log covers the new diamond');
    const vc = payloadOf(jwt);
    expect(vc.credentialSubject).toMatchObject({ origin_status: 'pending', origin_countries: [], carats: '1.5', lifecycle_state: 'rough' });
    expect('grader_report_number' in vc.credentialSubject).toBe(false);
    expect(await verifyCredential(jwt, { keys })).toMatchObject({ ok: true });
  });

  it('rough from two producers in one shipment: both countries, sorted', async () => {
    const tag = `${process.pid}-${Date.now().toString(36)}`;
    const mine = async (country: string) =>
      participantWithToken(stack, 'producer', 'platform', {
        name: `Mine ${country} ${tag}`,
        provenance: { name: `Mine ${country}`, type: 'mine', country_code: country },
      });
    const [ca, bw] = [await mine('CA'), await mine('BW')];
    const trader = await participantWithToken(stack, 'manufacturer', 'platform', { name: `Trader ${tag}` });
    const cutter = await participantWithToken(stack, 'manufacturer', 'platform', { name: `Cutter ${tag}` });
    const rough = async (who: typeof ca) =>
      platformCall<DiamondV1>(stack, who, 'POST', '/diamonds/rough/create', {
        box_id: `B-${tag}`,
        participant_id: `R-${who.participant_id}`,
        participant_timestamp: '2024-03-01T10:00:00Z',
        rough: { carats: 2 },
      });
    const [d1, d2] = [await rough(ca), await rough(bw)];
    await shipAndAccept(stack, ca, trader, 'rough', [d1.diamond_id]);
    await shipAndAccept(stack, bw, trader, 'rough', [d2.diamond_id]);
    const s = await shipAndAccept(stack, trader, cutter, 'rough', [d1.diamond_id, d2.diamond_id]);
    const mixed = await platformCall<DiamondV1>(stack, cutter, 'POST', '/diamonds/rough/create', {
      box_id: s.id,
      participant_id: `MIX-${tag}`,
      participant_timestamp: '2024-03-10T10:00:00Z',
      rough: { carats: 3.9 },
    });
    const jwt = await eventually(async () => {
      const r = await searchGet(stack, j.reader, `/v1/diamonds/${mixed.diamond_id}/credential`);
      if (r.status === 409 || r.status === 404) return undefined;
      return r.status === 200 ? r.text : Promise.reject(new Error(`${r.status} ${r.text}`));
    }, 'a credential once the log covers the new diamond');
    expect(payloadOf(jwt).credentialSubject).toMatchObject({ origin_status: 'confirmed', origin_countries: ['BW', 'CA'] });
    expect(await verifyCredential(jwt, { keys })).toMatchObject({ ok: true });
  });
});
