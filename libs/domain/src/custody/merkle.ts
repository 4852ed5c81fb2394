import { hash } from 'node:crypto';

/**
 * RFC 9162 Merkle tree hashing and proof *generation*, server side (synchronous node:crypto). Proof *verification*
 * lives in @dtp/verify (browser-safe, WebCrypto). Hashes are 32-byte Buffers here; hex at the edges.
 *
 * Storage model: a tree keeps only its "perfect" nodes, the roots of complete aligned subtrees:
 * node (level L, index i) = MTH(D[i*2^L : (i+1)*2^L]); level 0 are the leaf hashes. Any MTH(D[a:b]) that RFC 9162's
 * recursions ask for is a fold of O(log n) perfect nodes, so proofs need O(log^2 n) stored nodes at most.
 */
export type Hash = Buffer;

// node:crypto's one-shot hash(): a few times cheaper than createHash() for inputs this small (no Hash object).
export const sha256 = (...parts: (Buffer | Uint8Array)[]): Hash =>
  hash('sha256', parts.length === 1 ? parts[0] : Buffer.concat(parts), 'buffer') as unknown as Hash;

const LEAF = Buffer.from([0x00]);
const NODE = Buffer.from([0x01]);

/** MTH of the empty tree. */
export const EMPTY_ROOT: Hash = sha256();
/** Leaf hash of an entry: SHA-256(0x00 || entry_hash bytes). */
export const leafHash = (entryHash: Hash): Hash => sha256(LEAF, entryHash);
/** Interior node: SHA-256(0x01 || left || right). */
export const nodeHash = (left: Hash, right: Hash): Hash => sha256(NODE, left, right);

export interface NodeKey {
  level: number;
  index: number;
}
export const nodeKeyString = (k: NodeKey): string => `${k.level}:${k.index}`;

/** Largest power of two strictly smaller than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The perfect nodes whose fold is MTH(D[a:b]), left to right, for a range RFC 9162 can ask for (a is a multiple
 * of the largest power of two not above b - a... which holds for every range its recursions produce).
 */
export function rangeNodes(a: number, b: number): NodeKey[] {
  if (b <= a) throw new RangeError(`empty range [${a}, ${b})`);
  const out: NodeKey[] = [];
  let start = a;
  let size = b - a;
  while (size > 0) {
    let level = 0;
    while (2 ** (level + 1) <= size) level += 1;
    const width = 2 ** level;
    if (start % width !== 0) throw new RangeError(`range [${a}, ${b}) is not aligned for RFC 9162 subtrees`);
    out.push({ level, index: start / width });
    start += width;
    size -= width;
  }
  return out;
}

/** Folds perfect nodes (left to right, as rangeNodes gives them) into the MTH of their range: right-heavy fold. */
export function foldRange(hashes: Hash[]): Hash {
  let acc = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i -= 1) acc = nodeHash(hashes[i], acc);
  return acc;
}

/** The MTH ranges (as [a, b)) whose hashes make the inclusion proof of leaf m in a tree of n leaves, leaf side first. */
export function inclusionRanges(m: number, n: number): [number, number][] {
  if (!(m >= 0 && m < n)) throw new RangeError(`leaf ${m} is not in a tree of ${n}`);
  const out: [number, number][] = [];
  const path = (m0: number, lo: number, hi: number): void => {
    const size = hi - lo;
    if (size <= 1) return;
    const k = splitPoint(size);
    if (m0 < k) {
      path(m0, lo, lo + k);
      out.push([lo + k, hi]);
    } else {
      path(m0 - k, lo + k, hi);
      out.push([lo, lo + k]);
    }
  };
  path(m, 0, n);
  return out;
}

/** The MTH ranges whose hashes make the consistency proof from tree size m to n (RFC 9162 2.1.4.1), in order. */
export function consistencyRanges(m: number, n: number): [number, number][] {
  if (!(m >= 0 && m <= n)) throw new RangeError(`no consistency proof from ${m} to ${n}`);
  if (m === 0 || m === n) return [];
  const out: [number, number][] = [];
  const sub = (m0: number, lo: number, hi: number, b: boolean): void => {
    const size = hi - lo;
    if (m0 === size) {
      if (!b) out.push([lo, hi]);
      return;
    }
    const k = splitPoint(size);
    if (m0 <= k) {
      sub(m0, lo, lo + k, b);
      out.push([lo + k, hi]);
    } else {
      sub(m0 - k, lo + k, hi, false);
      out.push([lo, lo + k]);
    }
  };
  sub(m, 0, n, true);
  return out;
}

/** The perfect nodes a set of ranges needs (deduplicated), for one batched read of the store. */
export function nodesFor(ranges: [number, number][]): NodeKey[] {
  const seen = new Map<string, NodeKey>();
  for (const [a, b] of ranges) for (const k of rangeNodes(a, b)) seen.set(nodeKeyString(k), k);
  return [...seen.values()];
}

/** MTH of each range, from a lookup of perfect nodes (throws naming the first missing node). */
export function hashRanges(ranges: [number, number][], lookup: (k: NodeKey) => Hash | undefined): Hash[] {
  return ranges.map(([a, b]) =>
    foldRange(
      rangeNodes(a, b).map((k) => {
        const h = lookup(k);
        if (!h) throw new Error(`custody tree node ${nodeKeyString(k)} is missing`);
        return h;
      }),
    ),
  );
}

/** Root of a tree of n leaves from its perfect nodes (EMPTY_ROOT for 0). */
export function rootOf(n: number, lookup: (k: NodeKey) => Hash | undefined): Hash {
  return n === 0 ? EMPTY_ROOT : hashRanges([[0, n]], lookup)[0];
}

/**
 * Appends leaves to a tree of `size` leaves, given its right frontier (the perfect nodes of rangeNodes(0, size),
 * as a lookup). Returns every new perfect node (leaves included) to store, and a lookup that also sees them.
 */
export function appendLeaves(
  size: number,
  leafHashes: Hash[],
  lookup: (k: NodeKey) => Hash | undefined,
): { nodes: { key: NodeKey; hash: Hash }[]; lookup: (k: NodeKey) => Hash | undefined } {
  const fresh = new Map<string, Hash>();
  const nodes: { key: NodeKey; hash: Hash }[] = [];
  const get = (k: NodeKey) => fresh.get(nodeKeyString(k)) ?? lookup(k);
  const put = (key: NodeKey, hash: Hash) => {
    fresh.set(nodeKeyString(key), hash);
    nodes.push({ key, hash });
  };
  let n = size;
  for (const leaf of leafHashes) {
    put({ level: 0, index: n }, leaf);
    // Every completed aligned subtree ending at leaf n gets its node.
    let level = 0;
    let index = n;
    while (index % 2 === 1) {
      const left = get({ level, index: index - 1 });
      const right = get({ level, index });
      if (!left || !right) throw new Error(`custody tree node ${level}:${index - 1} is missing`);
      index = (index - 1) / 2;
      level += 1;
      put({ level, index }, nodeHash(left, right));
    }
    n += 1;
  }
  return { nodes, lookup: get };
}
