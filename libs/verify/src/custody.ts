import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { CustodyAction, CustodyAnswer, CustodyCheckpoint, ProvenCustodyEntry } from '@dtp/domain';
import { canonicalJson, HEX64, sha256Hex } from './hashing';
import { consistencyProblem, inclusionProblem } from './proofs';

/** What went wrong, first problem found (DESIGN.md "Provenance"; docs/provenance.md). */
export type VerifyFailureCode =
  /** The checkpoint's JWS does not verify with the published key of its `kid` (or there is no such key). */
  | 'signature'
  /** The checkpoint's fields are not what was signed. */
  | 'checkpoint'
  /** An entry's `entry_hash` is not the SHA-256 of its JCS. */
  | 'entry_hash'
  /** An inclusion proof does not lead to the checkpoint's root. */
  | 'inclusion'
  /** The hash links: a missing entry, an entry not on the diamond's chain, a link to a later leaf. */
  | 'chain'
  /** Entries not in strictly increasing leaf order. */
  | 'order'
  /** The record does not hash to the diamond's latest entry's `record_sha256`. */
  | 'record'
  /** The log is not an append-only extension of the checkpoint seen before (rolled back or forked). */
  | 'consistency'
  /** The answer is not shaped as a custody answer. */
  | 'format'
  /** (fetchAndVerify only) a request failed: the answer could not be checked at all. */
  | 'fetch';

export interface VerifyFailure {
  code: VerifyFailureCode;
  message: string;
  /** The entry the problem is at, when there is one. */
  leaf_index?: number;
  /**
   * The log may not have caught up yet, and asking again later tells: (record) the record served is a version the
   * log does not have - a change made since the last checkpoint (they come every few seconds) looks like this, and
   * so does a forged record; (fetch) the custody answer was 404 - a diamond registered seconds ago, or an unknown one.
   */
  pending?: true;
  /** (fetch) The HTTP status of the request that failed, when there was an answer. */
  status?: number;
}

/** One entry of the verified chain, oldest first. */
export interface VerifiedStep {
  action: CustodyAction;
  occurred_at: string;
  leaf_index: number;
  /** An entry of one of the diamond's ancestors (its parent, grandparent...), not of the diamond itself. */
  ancestor: boolean;
}

export interface VerifiedCheckpoint {
  log_id: string;
  tree_size: number;
  root_hash: string;
  timestamp: string;
  /** The key that signed it. */
  kid: string;
}

export type VerifyResult =
  | {
      ok: true;
      /** One sentence for people (no ids in it). */
      summary: string;
      diamond_id: string;
      checkpoint: VerifiedCheckpoint;
      /** Entries in the answer (the diamond's and its ancestors'), every one checked. */
      entries: number;
      chain: VerifiedStep[];
      /** `matched`: the record hashes to the latest entry's record_sha256; `deleted`: no record, latest is a deletion. */
      record: 'matched' | 'deleted' | 'not_checked';
      /** The tree size of the earlier checkpoint this one was proven consistent with. */
      consistent_with?: number;
    }
  | { ok: false; failure: VerifyFailure };

/** The public keys: a JWKS such as `{base_url}/.well-known/custody-keys.json` answers. */
export interface CustodyKeys {
  /** Public JWKs with `kid` (jose's JWK: the JSON Web Key members, RFC 7517). */
  keys: JWK[];
}

export interface VerifyCustodyOptions {
  diamondId: string;
  keys: CustodyKeys;
  /**
   * The diamond's current record as served (DiamondV1), checked against its latest entry's `record_sha256`;
   * null when the server has none (a deleted diamond); leave it out to skip the check.
   */
  record?: unknown | null;
  /** A checkpoint verified before (same log) and the consistency proof from it to the answer's checkpoint. */
  known?: { checkpoint: CustodyCheckpoint; consistency: string[] };
}

const ALGORITHMS = ['EdDSA', 'ES256'];

class Failed extends Error {
  constructor(readonly failure: VerifyFailure) {
    super(failure.message);
  }
}
const fail = (code: VerifyFailureCode, message: string, leaf_index?: number, extra: Partial<VerifyFailure> = {}): never => {
  throw new Failed({ code, message, ...(leaf_index === undefined ? {} : { leaf_index }), ...extra });
};

/**
 * Checks a custody answer (`GET /v1/diamonds/{id}/custody`) with the published keys alone, and stops at the first
 * problem: the checkpoint's signature and signed fields; per entry, in order, its leaf order, its entry_hash and
 * its inclusion proof; the hash chain from the diamond's latest entry back to a root (every entry on it, none
 * besides); the record against the latest entry; the consistency with a checkpoint seen before.
 */
export async function verifyCustody(answer: CustodyAnswer, opts: VerifyCustodyOptions): Promise<VerifyResult> {
  try {
    return await check(answer, opts);
  } catch (err) {
    if (err instanceof Failed) return { ok: false, failure: err.failure };
    throw err;
  }
}

async function check(answer: CustodyAnswer, opts: VerifyCustodyOptions): Promise<VerifyResult> {
  checkFormat(answer);
  const cp = answer.checkpoint;
  const kid = await checkSignature(cp, opts.keys);

  let previous = -1;
  for (const e of answer.entries) {
    const at = e.leaf_index;
    if (at <= previous)
      fail('order', `entry at leaf ${at} comes after leaf ${previous}: the entries are not in increasing leaf order (reordered or repeated)`, at);
    previous = at;
    const hash = await sha256Hex(canonicalJson(e.entry));
    if (hash !== e.entry_hash)
      fail('entry_hash', `entry at leaf ${at} (${e.entry.action}) was altered: its content hashes to ${hash}, not to its entry_hash ${e.entry_hash}`, at);
    if (at >= cp.tree_size) fail('inclusion', `entry at leaf ${at} is outside the checkpoint's tree of ${cp.tree_size} leaves`, at);
    const problem = await inclusionProblem({
      leafIndex: at,
      treeSize: cp.tree_size,
      entryHash: e.entry_hash,
      proof: e.inclusion_proof,
      rootHash: cp.root_hash,
    });
    if (problem) fail('inclusion', `entry at leaf ${at} (${e.entry.action}) is not in the signed log: ${problem}`, at);
  }

  const { chain, latest, own } = checkChain(answer.entries, opts.diamondId);
  const record = await checkRecord(latest, own, opts);

  let consistentWith: number | undefined;
  if (opts.known) {
    const k = opts.known.checkpoint;
    if (!k || typeof k !== 'object') fail('format', 'the checkpoint seen before is not a checkpoint');
    if (k.log_id !== cp.log_id) fail('consistency', `the checkpoint seen before is of log ${k.log_id}, this answer's of log ${cp.log_id}`);
    const problem = await consistencyProblem({
      fromSize: k.tree_size,
      fromRoot: k.root_hash,
      toSize: cp.tree_size,
      toRoot: cp.root_hash,
      proof: opts.known.consistency,
    });
    if (problem) fail('consistency', problem);
    consistentWith = k.tree_size;
  }

  const ancestors = answer.entries.length - own.length;
  const summary =
    `Verified ${plural(answer.entries.length, 'custody entry', 'custody entries')} (${own.length} of this diamond` +
    `${ancestors ? `, ${ancestors} of its ancestors` : ''}) against the log's checkpoint of ${cp.tree_size} entries at ${cp.timestamp}, signed by key ${kid}` +
    `${record === 'matched' ? '; the record matches its latest entry' : record === 'deleted' ? '; the diamond was deleted' : ''}` +
    `${consistentWith !== undefined ? `; the log extends the one of ${consistentWith} entries seen before` : ''}.`;
  return {
    ok: true,
    summary,
    diamond_id: opts.diamondId,
    checkpoint: { log_id: cp.log_id, tree_size: cp.tree_size, root_hash: cp.root_hash, timestamp: cp.timestamp, kid },
    entries: answer.entries.length,
    chain,
    record,
    ...(consistentWith !== undefined ? { consistent_with: consistentWith } : {}),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHex = (v: unknown): v is string => typeof v === 'string' && HEX64.test(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function checkFormat(answer: unknown): asserts answer is CustodyAnswer {
  if (!isObject(answer)) fail('format', 'the custody answer is not a JSON object');
  const cp = (answer as Record<string, unknown>).checkpoint;
  if (!isObject(cp)) fail('format', 'the custody answer has no checkpoint');
  const c = cp as Record<string, unknown>;
  if (!isText(c.log_id)) fail('format', 'checkpoint.log_id is not a text');
  if (!isIndex(c.tree_size)) fail('format', 'checkpoint.tree_size is not a whole number');
  if (!isHex(c.root_hash)) fail('format', 'checkpoint.root_hash is not a lower-case hex SHA-256');
  if (!isText(c.timestamp)) fail('format', 'checkpoint.timestamp is not a text');
  if (!isText(c.jws)) fail('format', 'checkpoint.jws is not a text');
  const entries = (answer as Record<string, unknown>).entries;
  if (!Array.isArray(entries)) fail('format', 'the custody answer has no entries list');
  (entries as unknown[]).forEach((raw, i) => {
    const where = `entries[${i}]`;
    if (!isObject(raw)) fail('format', `${where} is not an object`);
    const e = raw as Record<string, unknown>;
    if (!isIndex(e.leaf_index)) fail('format', `${where}.leaf_index is not a whole number`);
    const at = e.leaf_index as number;
    if (!isHex(e.entry_hash)) fail('format', `${where}.entry_hash is not a lower-case hex SHA-256`, at);
    if (!Array.isArray(e.inclusion_proof) || !e.inclusion_proof.every(isHex))
      fail('format', `${where}.inclusion_proof is not a list of lower-case hex SHA-256`, at);
    if (!isObject(e.entry)) fail('format', `${where}.entry is not an object`, at);
    const x = e.entry as Record<string, unknown>;
    for (const f of ['diamond_id', 'version_id', 'action', 'occurred_at'] as const) if (!isText(x[f])) fail('format', `${where}.entry.${f} is not a text`, at);
    if (x.actor_participant_id !== null && !isText(x.actor_participant_id))
      fail('format', `${where}.entry.actor_participant_id is neither a text nor null`, at);
    if (!isHex(x.record_sha256)) fail('format', `${where}.entry.record_sha256 is not a lower-case hex SHA-256`, at);
    if (x.prev_entry_hash !== null && !isHex(x.prev_entry_hash)) fail('format', `${where}.entry.prev_entry_hash is neither a hex SHA-256 nor null`, at);
    if (x.links !== undefined) {
      const links = x.links as unknown;
      if (!Array.isArray(links) || links.length === 0 || !links.every(isHex))
        fail('format', `${where}.entry.links is not a non-empty list of lower-case hex SHA-256`, at);
      if ((links as string[]).some((h, i, all) => i > 0 && all[i - 1] >= h)) fail('format', `${where}.entry.links is not sorted and distinct`, at);
      if (x.action !== 'registered') fail('format', `${where}.entry.links is on a ${String(x.action)} entry; only a registration links to a shipment`, at);
    }
  });
}

/**
 * The kid that signed a checkpoint, or why it does not verify (`signature`: forged or unknown key; `checkpoint`: the
 * fields are not what was signed). Used by verifyCredential for the checkpoint a credential carries.
 */
export async function checkpointSigner(cp: CustodyCheckpoint, keys: CustodyKeys): Promise<{ kid: string } | { problem: VerifyFailure }> {
  try {
    return { kid: await checkSignature(cp, keys) };
  } catch (err) {
    if (err instanceof Failed) return { problem: err.failure };
    throw err;
  }
}

/** Verifies the JWS with the published key of its kid, then that it signs exactly the checkpoint's four fields. */
async function checkSignature(cp: CustodyCheckpoint, keys: CustodyKeys): Promise<string> {
  if (!isObject(keys) || !Array.isArray(keys.keys)) fail('format', 'the keys are not a JWKS ({"keys": [...]})');
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(cp.jws);
  } catch (err) {
    return fail('signature', `the checkpoint's jws is not a JWS compact: ${(err as Error).message}`);
  }
  const { alg, kid } = header;
  if (!alg || !ALGORITHMS.includes(alg))
    fail('signature', `the checkpoint is signed with algorithm ${String(alg)}; only ${ALGORITHMS.join(' and ')} are accepted`);
  if (!isText(kid)) fail('signature', "the checkpoint's JWS header names no key (kid)");
  const jwk = keys.keys.find((k) => isObject(k) && k.kid === kid);
  if (!jwk)
    fail('signature', `no published key has the kid ${kid} that signed the checkpoint (published: ${keys.keys.map((k) => k?.kid).join(', ') || 'none'})`);
  if (jwk!.alg && jwk!.alg !== alg) fail('signature', `key ${kid} is published for ${jwk!.alg}, but the checkpoint says ${alg}`);
  let payload: Uint8Array;
  try {
    const key = await importJWK({ ...jwk!, alg }, alg);
    ({ payload } = await compactVerify(cp.jws, key, { algorithms: ALGORITHMS }));
  } catch (err) {
    return fail('signature', `the checkpoint's signature does not verify with published key ${kid} (${(err as Error).message}): forged or altered`);
  }
  const signed = new TextDecoder().decode(payload);
  const served = canonicalJson({ log_id: cp.log_id, tree_size: cp.tree_size, root_hash: cp.root_hash, timestamp: cp.timestamp });
  if (signed !== served) fail('checkpoint', `the checkpoint's fields are not what key ${kid} signed: signed ${signed}, served ${served}`);
  return kid!;
}

/**
 * Walks the hash links from the diamond's latest entry back to the roots (prev_entry_hash null, no links): each
 * entry's `prev_entry_hash` and, on a registration against a shipment, each of its `links` (the shipped diamonds'
 * latest entries). Every link must reach an entry of the answer at an earlier leaf; following `prev_entry_hash`, a
 * walk that left a diamond (for its parent) never comes back to it; every entry of the answer must be reached.
 */
function checkChain(entries: ProvenCustodyEntry[], diamondId: string): { chain: VerifiedStep[]; latest: ProvenCustodyEntry; own: ProvenCustodyEntry[] } {
  const own = entries.filter((e) => e.entry.diamond_id === diamondId);
  if (own.length === 0) fail('chain', `the answer has no entry of diamond ${diamondId}`);
  const byHash = new Map<string, ProvenCustodyEntry>();
  for (const e of entries) {
    if (byHash.has(e.entry_hash))
      fail('chain', `entry at leaf ${e.leaf_index} repeats the entry at leaf ${byHash.get(e.entry_hash)!.leaf_index}`, e.leaf_index);
    byHash.set(e.entry_hash, e);
  }
  const latest = own[own.length - 1];
  const onChain = new Set<string>();
  // Each walk: a start entry and the diamonds its prev_entry_hash walk has left so far.
  const walks: { start: ProvenCustodyEntry; left: Set<string> }[] = [{ start: latest, left: new Set() }];
  while (walks.length > 0) {
    const { start, left } = walks.pop()!;
    for (let cur: ProvenCustodyEntry | undefined = start; cur && !onChain.has(cur.entry_hash);) {
      onChain.add(cur.entry_hash);
      const what = `entry at leaf ${cur.leaf_index} (${cur.entry.action} of ${cur.entry.diamond_id === diamondId ? 'this diamond' : `ancestor ${cur.entry.diamond_id}`})`;
      for (const link of cur.entry.links ?? []) {
        const l = byHash.get(link);
        if (!l) fail('chain', `${what} links to shipped diamond entry ${link}, which the answer does not have: an entry is missing`, cur.leaf_index);
        if (l!.leaf_index >= cur.leaf_index)
          fail('chain', `${what} links to the entry at leaf ${l!.leaf_index}, which is not earlier in the log`, cur.leaf_index);
        walks.push({ start: l!, left: new Set() });
      }
      const prev = cur.entry.prev_entry_hash;
      if (prev === null) break;
      const p = byHash.get(prev);
      if (!p) fail('chain', `${what} links to entry ${prev}, which the answer does not have: an entry is missing`, cur.leaf_index);
      if (p!.leaf_index >= cur.leaf_index)
        fail('chain', `${what} links to the entry at leaf ${p!.leaf_index}, which is not earlier in the log`, cur.leaf_index);
      if (p!.entry.diamond_id !== cur.entry.diamond_id) {
        left.add(cur.entry.diamond_id);
        if (left.has(p!.entry.diamond_id)) fail('chain', `${what} links back to diamond ${p!.entry.diamond_id}, which the chain already left`, cur.leaf_index);
      }
      cur = p!;
    }
  }
  for (const e of entries) {
    if (!onChain.has(e.entry_hash)) {
      fail(
        'chain',
        `entry at leaf ${e.leaf_index} (${e.entry.action} of diamond ${e.entry.diamond_id}) is not on the chain of diamond ${diamondId}: an extra or reordered entry`,
        e.leaf_index,
      );
    }
  }
  return {
    chain: entries.map((e) => ({
      action: e.entry.action,
      occurred_at: e.entry.occurred_at,
      leaf_index: e.leaf_index,
      ancestor: e.entry.diamond_id !== diamondId,
    })),
    latest,
    own,
  };
}

async function checkRecord(latest: ProvenCustodyEntry, own: ProvenCustodyEntry[], opts: VerifyCustodyOptions): Promise<'matched' | 'deleted' | 'not_checked'> {
  if (opts.record === undefined) return 'not_checked';
  const at = latest.leaf_index;
  const deleted = latest.entry.action === 'deleted';
  if (opts.record === null) {
    if (deleted) return 'deleted';
    return fail('record', `no record was served, but the diamond's latest entry (leaf ${at}, ${latest.entry.action}) is not a deletion`, at);
  }
  if (deleted) fail('record', `a record was served, but the diamond's latest entry (leaf ${at}) is its deletion`, at);
  const hash = await sha256Hex(canonicalJson(opts.record));
  if (hash === latest.entry.record_sha256) return 'matched';
  const version = isObject(opts.record) ? opts.record.version_id : undefined;
  if (isText(version) && version !== latest.entry.version_id) {
    const older = own.find((e) => e.entry.version_id === version);
    if (older)
      fail(
        'record',
        `the record served is version ${version} (leaf ${older.leaf_index}), not the latest version ${latest.entry.version_id} of the log (leaf ${at})`,
        at,
      );
    fail(
      'record',
      `the record served (version ${version}) is not in the log; the log's latest entry of the diamond is version ${latest.entry.version_id} (leaf ${at}). A change made seconds ago is in the log once the next checkpoint is out: try again`,
      at,
      { pending: true },
    );
  }
  return fail(
    'record',
    `the record served was altered: it hashes to ${hash}, but the diamond's latest entry (leaf ${at}, ${latest.entry.action}) says ${latest.entry.record_sha256}`,
    at,
  );
}
