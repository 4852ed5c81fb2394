import { base64url, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { CustodyCheckpoint, CustodyEntry, DiamondOriginCredential } from '@dtp/domain';
import { checkpointSigner, type CustodyKeys } from './custody';
import { canonicalJson, HEX64, sha256Hex } from './hashing';
import { inclusionProblem } from './proofs';

/** What is wrong with an origin credential: the member that does not hold, first found. */
export type CredentialFailureCode =
  /** Not a JWT, not a VC 2.0 credential of this kind, or a member missing or mistyped. */
  | 'format'
  /** The header names no key, or a key the published set does not have. */
  | 'key_id'
  /** The JWT's signature does not verify with the published key its kid names. */
  | 'signature'
  /** The embedded checkpoint's own signature or signed fields do not verify. */
  | 'checkpoint'
  /** The custody entry does not hash to its entry_hash, or is another diamond's. */
  | 'entry_hash'
  /** The inclusion proof does not lead from the entry's leaf to the checkpoint's root. */
  | 'proof'
  /** The record (evidence) does not hash to the entry's record_sha256, or is not the record given. */
  | 'record'
  | 'origin_countries'
  | 'carats'
  | 'lifecycle_state'
  | 'grader_report_number';

export interface CredentialFailure {
  code: CredentialFailureCode;
  message: string;
}

export type CredentialVerifyResult =
  | {
      ok: true;
      /** One sentence for people. */
      summary: string;
      /** The key that signed the credential (and the checkpoint's, which may differ). */
      kid: string;
      checkpoint_kid: string;
      credential: DiamondOriginCredential;
    }
  | { ok: false; failure: CredentialFailure; credential?: DiamondOriginCredential };

export interface VerifyCredentialOptions {
  /** The custody keys (`{base_url}/.well-known/custody-keys.json`, or a file of it): all that is needed offline. */
  keys: CustodyKeys;
  /** The diamond's current record as fetched online (optional): it must be the record the credential carries. */
  record?: unknown;
}

const ALGORITHMS = ['EdDSA', 'ES256'];
const VC_V2 = 'https://www.w3.org/ns/credentials/v2';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHex = (v: unknown): v is string => typeof v === 'string' && HEX64.test(v);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

class Problem extends Error {
  constructor(readonly failure: CredentialFailure) {
    super(failure.message);
  }
}
const fail = (code: CredentialFailureCode, message: string): never => {
  throw new Problem({ code, message });
};

/**
 * Checks an origin credential (DESIGN.md "Looking a diamond up by what people hold") with the published custody keys
 * alone: the JWT's header (typ `vc+jwt`, a published kid) and signature; the VC 2.0 shape; the embedded checkpoint's
 * signature; the custody entry against its hash and the subject; its inclusion proof against the checkpoint's root;
 * the record (evidence) against the entry's record_sha256; each claim (origin countries, carats, lifecycle state, report
 * number) against the record. Stops at the first problem and names the member. A claim that disagrees is reported by
 * name even when the signature fails too (the message then says the credential was altered after signing).
 */
export async function verifyCredential(jwt: string, opts: VerifyCredentialOptions): Promise<CredentialVerifyResult> {
  let credential: DiamondOriginCredential | undefined;
  try {
    const parsed = parse(jwt);
    credential = parsed.credential;
    const key = findKey(parsed.header, opts.keys);
    const signed = await signatureHolds(jwt, key, parsed.header.alg!);
    const altered = signed ? '' : " The credential's signature does not verify either: it was altered after it was signed.";
    const checkpointKid = await checkContent(credential, opts, altered);
    if (!signed)
      fail('signature', `the credential's signature does not verify with published key ${parsed.header.kid}: it was forged or altered after it was signed`);
    const s = credential.credentialSubject;
    const origin = s.origin_status === 'confirmed' ? `origin ${s.origin_countries.join(', ')}` : 'origin not confirmed yet (no country claimed)';
    return {
      ok: true,
      summary:
        `Verified the origin credential of ${s.id}: ${origin}; ${s.carats ?? 'unknown'} ct, ${s.lifecycle_state}` +
        `${s.grader_report_number ? `, report ${s.grader_report_number}${s.grading_lab ? ` (${s.grading_lab})` : ''}` : ''}; ` +
        `signed by key ${parsed.header.kid}, tied to custody entry ${s.custody.leaf_index} of the log's checkpoint of ${s.custody.checkpoint.tree_size} entries at ${s.custody.checkpoint.timestamp}.`,
      kid: parsed.header.kid!,
      checkpoint_kid: checkpointKid,
      credential,
    };
  } catch (err) {
    if (err instanceof Problem) return { ok: false, failure: err.failure, ...(credential ? { credential } : {}) };
    throw err;
  }
}

interface Header {
  alg?: string;
  kid?: string;
  typ?: string;
}

function parse(jwt: unknown): { header: Header; credential: DiamondOriginCredential } {
  if (typeof jwt !== 'string') return fail('format', 'the credential is not a text (a JWT)');
  const parts = jwt.trim().split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p)))
    fail('format', 'the credential is not a JWT (three base64url parts separated by dots)');
  let header: Header;
  let payload: unknown;
  try {
    header = decodeProtectedHeader(jwt.trim()) as Header;
    payload = JSON.parse(new TextDecoder().decode(base64url.decode(parts[1])));
  } catch (err) {
    return fail('format', `the credential's header or payload is not base64url JSON: ${(err as Error).message}`);
  }
  if (header.typ !== 'vc+jwt') fail('format', `the JWT's typ is ${JSON.stringify(header.typ)}, not "vc+jwt" (VC-JOSE-COSE)`);
  if (!header.alg || !ALGORITHMS.includes(header.alg))
    fail('signature', `the credential is signed with algorithm ${String(header.alg)}; only ${ALGORITHMS.join(' and ')} are accepted`);
  checkShape(payload);
  return { header, credential: payload };
}

/** The VC 2.0 data model's rules that apply (context, type, issuer, validFrom, subject) and this credential's members. */
function checkShape(c: unknown): asserts c is DiamondOriginCredential {
  if (!isObject(c)) fail('format', 'the payload is not a JSON object');
  const v = c as Record<string, unknown>;
  const ctx = v['@context'];
  if (!Array.isArray(ctx) || ctx[0] !== VC_V2) fail('format', `@context must be a list starting with ${VC_V2} (VC 2.0)`);
  const type = v.type;
  if (!Array.isArray(type) || !type.includes('VerifiableCredential') || !type.includes('DiamondOriginCredential'))
    fail('format', 'type must list "VerifiableCredential" and "DiamondOriginCredential"');
  if (!isText(v.issuer) || !/^[a-z][a-z0-9+.-]*:/i.test(v.issuer as string)) fail('format', 'issuer must be a URL');
  if (!isText(v.validFrom) || !ISO_DATE.test(v.validFrom as string)) fail('format', 'validFrom must be an XML Schema dateTime with a time zone');
  const s = v.credentialSubject;
  if (!isObject(s)) fail('format', 'credentialSubject must be an object');
  const subject = s as Record<string, unknown>;
  if (!isText(subject.id)) fail('format', 'credentialSubject.id must be the diamond URL');
  if (!Array.isArray(subject.origin_countries) || !subject.origin_countries.every((x) => typeof x === 'string' && /^[A-Z]{2}$/.test(x)))
    fail('origin_countries', 'credentialSubject.origin_countries must be a list of ISO 3166-1 alpha-2 codes');
  if (subject.origin_status !== 'confirmed' && subject.origin_status !== 'pending')
    fail('format', 'credentialSubject.origin_status must be "confirmed" or "pending"');
  if (subject.carats !== null && !isText(subject.carats)) fail('carats', 'credentialSubject.carats must be a decimal text or null');
  if (!isText(subject.lifecycle_state)) fail('lifecycle_state', 'credentialSubject.lifecycle_state must be a text');
  if (subject.grader_report_number !== undefined && !isText(subject.grader_report_number))
    fail('grader_report_number', 'credentialSubject.grader_report_number must be a text when present');
  const custody = subject.custody;
  if (!isObject(custody)) fail('format', 'credentialSubject.custody must be an object');
  const k = custody as Record<string, unknown>;
  if (!isObject(k.entry)) fail('entry_hash', 'credentialSubject.custody.entry must be the custody entry');
  if (!isHex(k.entry_hash)) fail('entry_hash', 'credentialSubject.custody.entry_hash must be a lower-case hex SHA-256');
  if (!isIndex(k.leaf_index)) fail('proof', 'credentialSubject.custody.leaf_index must be a whole number');
  if (!Array.isArray(k.inclusion_proof) || !k.inclusion_proof.every(isHex))
    fail('proof', 'credentialSubject.custody.inclusion_proof must be a list of hex SHA-256');
  const cp = k.checkpoint;
  if (!isObject(cp)) fail('checkpoint', 'credentialSubject.custody.checkpoint must be the signed checkpoint');
  const p = cp as Record<string, unknown>;
  if (!isText(p.log_id) || !isIndex(p.tree_size) || !isHex(p.root_hash) || !isText(p.timestamp) || !isText(p.jws))
    fail('checkpoint', 'credentialSubject.custody.checkpoint lacks log_id, tree_size, root_hash, timestamp or jws');
  const evidence = v.evidence;
  if (!Array.isArray(evidence) || !isObject(evidence[0]) || !isObject((evidence[0] as Record<string, unknown>).record))
    fail('record', 'evidence[0].record must be the diamond record the claims come from');
  if (!Array.isArray((evidence as Record<string, unknown>[])[0].type)) fail('format', 'evidence[0].type must be a list');
}

function findKey(header: Header, keys: CustodyKeys): Record<string, unknown> {
  if (!isObject(keys) || !Array.isArray(keys.keys)) fail('format', 'the keys are not a JWKS ({"keys": [...]})');
  if (!isText(header.kid)) fail('key_id', "the credential's JWT header names no key (kid)");
  const jwk = keys.keys.find((k) => isObject(k) && k.kid === header.kid) as Record<string, unknown> | undefined;
  if (!jwk)
    fail(
      'key_id',
      `no published custody key has the kid ${header.kid} the credential names (published: ${keys.keys.map((k) => k?.kid).join(', ') || 'none'}): not issued by this platform`,
    );
  if (jwk!.alg && jwk!.alg !== header.alg) fail('key_id', `key ${header.kid} is published for ${String(jwk!.alg)}, but the credential says ${header.alg}`);
  return jwk!;
}

async function signatureHolds(jwt: string, jwk: Record<string, unknown>, alg: string): Promise<boolean> {
  try {
    const key = await importJWK({ ...(jwk as unknown as JWK), alg }, alg);
    await compactVerify(jwt.trim(), key, { algorithms: ALGORITHMS });
    return true;
  } catch {
    return false;
  }
}

/** Everything the credential claims, checked against what it carries; answers the checkpoint's kid. */
async function checkContent(c: DiamondOriginCredential, opts: VerifyCredentialOptions, altered: string): Promise<string> {
  const s = c.credentialSubject;
  const { entry, entry_hash, leaf_index, inclusion_proof } = s.custody;
  const checkpoint = s.custody.checkpoint as CustodyCheckpoint;
  const signer = await checkpointSigner(checkpoint, opts.keys);
  if ('problem' in signer) return fail('checkpoint', `the credential's checkpoint does not verify: ${signer.problem.message}.${altered}`);
  const hash = await sha256Hex(canonicalJson(entry));
  if (hash !== entry_hash) fail('entry_hash', `the custody entry was altered: it hashes to ${hash}, not to the entry_hash ${entry_hash}.${altered}`);
  const e = entry as CustodyEntry;
  if (!s.id.endsWith(`/id/diamond/${encodeURIComponent(e.diamond_id)}`))
    fail('entry_hash', `the custody entry is of diamond ${e.diamond_id}, but the credential is about ${s.id}.${altered}`);
  if (leaf_index >= checkpoint.tree_size) fail('proof', `leaf ${leaf_index} is outside the checkpoint's tree of ${checkpoint.tree_size} entries.${altered}`);
  const problem = await inclusionProblem({
    leafIndex: leaf_index,
    treeSize: checkpoint.tree_size,
    entryHash: entry_hash,
    proof: inclusion_proof,
    rootHash: checkpoint.root_hash,
  });
  if (problem) fail('proof', `the inclusion proof of leaf ${leaf_index} does not lead to the checkpoint's root: ${problem}.${altered}`);
  const record = c.evidence[0].record;
  const recordHash = await sha256Hex(canonicalJson(record));
  if (recordHash !== e.record_sha256)
    fail('record', `the record in the evidence hashes to ${recordHash}, not to the entry's record_sha256 ${e.record_sha256}.${altered}`);
  if (opts.record !== undefined && (await sha256Hex(canonicalJson(opts.record))) !== recordHash)
    fail('record', 'the record served now is not the record of the credential (the diamond changed since it was issued, or one of them was altered)');
  checkClaims(s, record, altered);
  return signer.kid;
}

function checkClaims(s: DiamondOriginCredential['credentialSubject'], record: Record<string, unknown>, altered: string): void {
  const rough = (isObject(record.rough) ? record.rough : {}) as Record<string, unknown>;
  const polished = (isObject(record.polished) ? record.polished : {}) as Record<string, unknown>;
  const c = record.lifecycle_state === 'rough' ? (rough.carats ?? polished.carats) : (polished.carats ?? rough.carats);
  const carats = c === undefined || c === null ? null : String(c);
  if (s.carats !== carats) fail('carats', `carats claims ${s.carats} but the record says ${carats}.${altered}`);
  if (s.lifecycle_state !== record.lifecycle_state)
    fail('lifecycle_state', `lifecycle_state claims ${s.lifecycle_state} but the record says ${String(record.lifecycle_state)}.${altered}`);
  const grading = Array.isArray(record.grading) && isObject(record.grading[0]) ? (record.grading[0] as Record<string, unknown>) : null;
  const report = isText(grading?.grader_report_number) ? grading!.grader_report_number : undefined;
  if (s.grader_report_number !== report)
    fail(
      'grader_report_number',
      `grader_report_number claims ${s.grader_report_number ?? 'none'} but the record's active grading says ${report ?? 'none'}.${altered}`,
    );
  const countries = s.origin_countries;
  if (countries.some((x, i) => i > 0 && countries[i - 1] >= x)) fail('origin_countries', `origin_countries is not sorted and distinct.${altered}`);
  if (s.origin_status === 'pending' && countries.length > 0)
    fail('origin_countries', `origin_countries claims ${countries.join(', ')} while origin_status is pending.${altered}`);
  if (s.origin_status === 'confirmed') {
    if (countries.length === 0) fail('origin_countries', `origin_status is confirmed but no country is claimed.${altered}`);
    const p = isObject(record.provenance) ? record.provenance : {};
    const own = p.is_country_code_available && isText(p.country_code) ? p.country_code : null;
    if (own && !countries.includes(own))
      fail('origin_countries', `origin_countries claims ${countries.join(', ')} but the record's provenance says ${own}.${altered}`);
  }
}
