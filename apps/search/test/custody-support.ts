import { randomUUID } from 'node:crypto';
import { CompactSign, exportJWK, generateKeyPair, JWK, KeyLike } from 'jose';
import {
  appendLeaves,
  canonicalJson,
  CustodyAction,
  CustodyCheckpoint,
  CustodyCheckpointData,
  CustodyEntry,
  CustodyEntryContext,
  entryHash,
  EventEnvelope,
  Hash,
  IndexedCustodyEntry,
  leafHash,
  makeEnvelope,
  NodeKey,
  nodeKeyString,
  recordSha256,
  rootOf,
  sha256,
} from '@dtp/domain';

/**
 * A custody log built the way platform's checkpointer does (DESIGN.md "Provenance"), for feeding search
 * `custody.checkpoint` events: entries hash-linked per diamond, leaves of an RFC 9162 tree (the domain's merkle
 * code), checkpoints signed with an Ed25519 key (EdDSA JWS compact over the JCS of the head).
 */
export class TestCustodyLog {
  readonly logId = `test-log-${randomUUID()}`;
  readonly entries: IndexedCustodyEntry[] = [];
  private readonly nodes = new Map<string, Hash>();
  private readonly lastOf = new Map<string, string>();
  private published = 0;
  private number = 0;

  private constructor(
    private readonly key: KeyLike,
    readonly publicJwk: JWK,
  ) {}

  static async create(): Promise<TestCustodyLog> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    return new TestCustodyLog(privateKey, { ...(await exportJWK(publicKey)), kid: 'test-custody-1', alg: 'EdDSA', use: 'sig' });
  }

  get size(): number {
    return this.entries.length;
  }

  /** Appends an entry of `diamondId` (linked to its previous one, or to `parentEntry` for a child's first entry). */
  add(
    diamondId: string,
    action: CustodyAction,
    opts: { actor?: string | null; record?: unknown; parentEntry?: string; context?: CustodyEntryContext; at?: string } = {},
  ): IndexedCustodyEntry {
    const entry: CustodyEntry = {
      diamond_id: diamondId,
      version_id: randomUUID(),
      action,
      actor_participant_id: opts.actor === undefined ? randomUUID() : opts.actor,
      occurred_at: opts.at ?? new Date(Date.UTC(2024, 4, 1, 10, 0, this.entries.length)).toISOString(),
      record_sha256: recordSha256(opts.record ?? { diamond_id: diamondId, n: this.entries.length }),
      prev_entry_hash: this.lastOf.get(diamondId) ?? opts.parentEntry ?? null,
    };
    const indexed: IndexedCustodyEntry = {
      entry,
      entry_hash: entryHash(entry),
      leaf_index: this.entries.length,
      ...(opts.context ? { context: opts.context } : {}),
    };
    const { nodes } = appendLeaves(this.entries.length, [leafHash(Buffer.from(indexed.entry_hash, 'hex'))], (k) => this.lookup(k));
    for (const n of nodes) this.nodes.set(nodeKeyString(n.key), n.hash);
    this.entries.push(indexed);
    this.lastOf.set(diamondId, indexed.entry_hash);
    return indexed;
  }

  lookup(k: NodeKey): Hash | undefined {
    return this.nodes.get(nodeKeyString(k));
  }

  root(size = this.size): string {
    return rootOf(size, (k) => this.lookup(k)).toString('hex');
  }

  async sign(head: Omit<CustodyCheckpoint, 'jws'>): Promise<CustodyCheckpoint> {
    const jws = await new CompactSign(Buffer.from(canonicalJson(head), 'utf8')).setProtectedHeader({ alg: 'EdDSA', kid: this.publicJwk.kid }).sign(this.key);
    return { ...head, jws };
  }

  /**
   * The next `custody.checkpoint` event: the entries since the previous one (or `entries` as given), the signed head
   * of the tree (or `rootHash` as given: a wrong root), revision = the checkpoint's number.
   */
  async checkpoint(
    opts: { entries?: IndexedCustodyEntry[]; rootHash?: string; treeSize?: number; number?: number } = {},
  ): Promise<EventEnvelope<CustodyCheckpointData>> {
    const entries = opts.entries ?? this.entries.slice(this.published);
    if (!opts.entries) this.published = this.size;
    const treeSize = opts.treeSize ?? this.size;
    this.number = opts.number ?? this.number + 1;
    const checkpoint = await this.sign({
      log_id: this.logId,
      tree_size: treeSize,
      root_hash: opts.rootHash ?? this.root(treeSize),
      timestamp: new Date().toISOString(),
    });
    return makeEnvelope({ event_type: 'custody.checkpoint', data: { checkpoint, entries }, revision: this.number }) as EventEnvelope<CustodyCheckpointData>;
  }
}

// ---- A straightforward RFC 9162 verifier (2.1.3.2 and 2.1.4.2), written from the RFC's text, for checking answers. ----

const hex = (h: string): Hash => Buffer.from(h, 'hex');
const node = (l: Buffer, r: Buffer) => sha256(Buffer.from([1]), l, r);

/** RFC 9162 2.1.3.2: verifies an inclusion proof of `entryHashHex` at `leafIndex` in a tree of `treeSize` with `rootHex`. */
export function verifyInclusion(entryHashHex: string, leafIndex: number, treeSize: number, proof: string[], rootHex: string): boolean {
  if (leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = sha256(Buffer.from([0]), hex(entryHashHex));
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(hex(p), r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = node(r, hex(p));
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r.equals(hex(rootHex));
}

/** RFC 9162 2.1.4.2: verifies a consistency proof between (first, firstRoot) and (second, secondRoot). */
export function verifyConsistency(first: number, second: number, proof: string[], firstRoot: string, secondRoot: string): boolean {
  if (first > second) return false;
  if (first === second) return proof.length === 0 && firstRoot === secondRoot;
  if (first === 0) return proof.length === 0;
  const path = proof.map(hex);
  if (path.length === 0) return false;
  if ((first & (first - 1)) === 0) path.unshift(hex(firstRoot));
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      sr = node(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && fr.equals(hex(firstRoot)) && sr.equals(hex(secondRoot));
}
