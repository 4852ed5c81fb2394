/**
 * A synthetic custody log for the tests, built with @dtp/domain's server-side Merkle code (the same code platform
 * and search use) and a locally generated key: entries, checkpoints signed as platform signs them, and custody
 * answers shaped as search serves them.
 */
import { CompactSign, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import {
  appendLeaves,
  canonicalJson,
  consistencyRanges,
  CustodyAction,
  CustodyAnswer,
  CustodyCheckpoint,
  CustodyEntry,
  entryHash,
  Hash,
  hashRanges,
  inclusionRanges,
  IndexedCustodyEntry,
  leafHash,
  NodeKey,
  nodeKeyString,
  ProvenCustodyEntry,
  recordSha256,
  rootOf,
} from '@dtp/domain';

export interface SigningKey {
  kid: string;
  alg: 'EdDSA' | 'ES256';
  privateKey: KeyLike;
  publicJwk: JWK;
}

export async function newKey(kid: string, alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** Signs `{log_id, tree_size, root_hash, timestamp}` as a JWS compact whose payload is their JCS. */
export async function sign(body: Omit<CustodyCheckpoint, 'jws'>, key: SigningKey): Promise<CustodyCheckpoint> {
  const signed = { log_id: body.log_id, tree_size: body.tree_size, root_hash: body.root_hash, timestamp: body.timestamp };
  const jws = await new CompactSign(new TextEncoder().encode(canonicalJson(signed))).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  return { ...signed, jws };
}

export const LOG_ID = 'https://platform.example.test';

let counter = 0;
const ulid = () => `01jx${String(++counter).padStart(22, '0')}`;

export class SyntheticLog {
  readonly entries: IndexedCustodyEntry[] = [];
  /** The records after each change, by version_id (what the record hash was computed from). */
  readonly records = new Map<string, Record<string, unknown>>();
  private readonly nodes = new Map<string, Hash>();
  private readonly lookup = (k: NodeKey) => this.nodes.get(nodeKeyString(k));
  private clock = Date.parse('2026-01-05T08:00:00.000Z');

  constructor(readonly logId = LOG_ID) {}

  get size(): number {
    return this.entries.length;
  }

  /** Appends an already made entry as the next leaf. */
  appendEntry(entry: CustodyEntry): IndexedCustodyEntry {
    const hash = entryHash(entry);
    const r = appendLeaves(this.size, [leafHash(Buffer.from(hash, 'hex'))], this.lookup);
    for (const n of r.nodes) this.nodes.set(nodeKeyString(n.key), n.hash);
    const indexed = { entry, entry_hash: hash, leaf_index: this.size };
    this.entries.push(indexed);
    return indexed;
  }

  /** The latest entry of a diamond (null when it has none). */
  head(diamondId: string): IndexedCustodyEntry | null {
    return [...this.entries].reverse().find((e) => e.entry.diamond_id === diamondId) ?? null;
  }

  /**
   * A change of `diamondId`: a new record version and its entry, linked to the diamond's previous entry (or, for
   * a first entry, to `parent`'s latest entry, or null).
   */
  change(
    diamondId: string,
    action: CustodyAction,
    opts: { actor?: string | null; parent?: string; fields?: Record<string, unknown>; links?: string[] } = {},
  ): IndexedCustodyEntry {
    const previous = this.head(diamondId);
    const prevRecord = previous ? this.records.get(previous.entry.version_id) : undefined;
    this.clock += 60_000;
    const occurred_at = new Date(this.clock).toISOString();
    const version_id = ulid();
    const record =
      action === 'deleted'
        ? { diamond_id: diamondId }
        : {
            ...(prevRecord ?? { diamond_id: diamondId, diamond_parent_id: opts.parent ?? null }),
            ...opts.fields,
            version_id,
            system_timestamp: occurred_at,
            last_action: action,
          };
    this.records.set(version_id, record);
    const prev = previous ?? (opts.parent ? this.head(opts.parent) : null);
    return this.appendEntry({
      diamond_id: diamondId,
      version_id,
      action,
      actor_participant_id: opts.actor === undefined ? '7b1f0c9e-1111-4c1d-9a36-0b5a1c2d3e4f' : opts.actor,
      occurred_at,
      record_sha256: recordSha256(record),
      prev_entry_hash: prev ? prev.entry_hash : null,
      ...(opts.links ? { links: [...opts.links].sort() } : {}),
    });
  }

  /** The current record of a diamond (its latest entry's), or null after deletion. */
  record(diamondId: string): Record<string, unknown> | null {
    const head = this.head(diamondId);
    if (!head || head.entry.action === 'deleted') return null;
    return this.records.get(head.entry.version_id)!;
  }

  rootHex(size = this.size): string {
    return rootOf(size, this.lookup).toString('hex');
  }

  inclusion(leaf: number, size = this.size): string[] {
    return hashRanges(inclusionRanges(leaf, size), this.lookup).map((h) => h.toString('hex'));
  }

  consistency(from: number, to = this.size): string[] {
    return hashRanges(consistencyRanges(from, to), this.lookup).map((h) => h.toString('hex'));
  }

  checkpoint(key: SigningKey, size = this.size): Promise<CustodyCheckpoint> {
    return sign({ log_id: this.logId, tree_size: size, root_hash: this.rootHex(size), timestamp: new Date(this.clock + 1000).toISOString() }, key);
  }

  /** What search answers for `diamondId` at tree size `size`: its chain back to a root, oldest first, with proofs. */
  async answer(diamondId: string, key: SigningKey, size = this.size): Promise<CustodyAnswer> {
    const visible = this.entries.slice(0, size);
    const byHash = new Map(visible.map((e) => [e.entry_hash, e]));
    const chain: IndexedCustodyEntry[] = [];
    const starts = [[...visible].reverse().find((e) => e.entry.diamond_id === diamondId)];
    while (starts.length > 0) {
      for (let cur = starts.pop(); cur && !chain.includes(cur); cur = cur.entry.prev_entry_hash ? byHash.get(cur.entry.prev_entry_hash) : undefined) {
        chain.push(cur);
        for (const l of cur.entry.links ?? []) starts.push(byHash.get(l));
      }
    }
    chain.sort((a, b) => a.leaf_index - b.leaf_index);
    const entries: ProvenCustodyEntry[] = chain.map((e) => ({ ...e, inclusion_proof: this.inclusion(e.leaf_index, size) }));
    return { checkpoint: await this.checkpoint(key, size), entries };
  }
}

/** A deep copy (tamper with it freely). */
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export const ROUGH = 'r0000000000000000000001';
export const POLISHED = 'p0000000000000000000001';
export const OTHER = 'x0000000000000000000001';

/**
 * A small world: a rough diamond registered, a file attached, shipped and accepted, polished into POLISHED (whose
 * first entry links to the rough's `polished` entry), POLISHED shipped and graded; another diamond's entries
 * interleaved (not on the chain); more of its entries after, so the tree grows past the chain.
 */
export function world(): SyntheticLog {
  const log = new SyntheticLog();
  log.change(ROUGH, 'registered', { fields: { lifecycle_state: 'rough', rough: { carats: '12.5' } } });
  log.change(OTHER, 'registered', { fields: { lifecycle_state: 'rough' } });
  log.change(ROUGH, 'file_attached', { fields: { files: ['a'.repeat(64)] } });
  log.change(ROUGH, 'shipped', { fields: { possession_state: 'in_transit' } });
  log.change(OTHER, 'unlocked');
  log.change(ROUGH, 'accepted', { fields: { possession_state: 'held' } });
  log.change(ROUGH, 'polished', { fields: { lifecycle_state: 'polished_parent' } });
  log.change(POLISHED, 'registered', { parent: ROUGH, fields: { lifecycle_state: 'polished', polished: { carats: '1.01', shape: 'Round' } } });
  log.change(POLISHED, 'shipped', { fields: { possession_state: 'in_transit' } });
  log.change(OTHER, 'record_updated', { actor: null });
  log.change(POLISHED, 'accepted', { fields: { possession_state: 'held' } });
  log.change(POLISHED, 'grading_selected', { fields: { grading: { colour: 'D', clarity: 'VVS1' } } });
  log.change(OTHER, 'shipped');
  return log;
}
