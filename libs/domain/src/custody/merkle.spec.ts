import {
  appendLeaves,
  consistencyRanges,
  EMPTY_ROOT,
  Hash,
  hashRanges,
  inclusionRanges,
  leafHash,
  NodeKey,
  nodeHash,
  nodeKeyString,
  rootOf,
  sha256,
  splitPoint,
} from './merkle';

// The reference: RFC 9162 2.1.1-2.1.4 written as literally as possible (recursive, from the leaves).
const mth = (d: Hash[]): Hash =>
  d.length === 0 ? EMPTY_ROOT : d.length === 1 ? d[0] : nodeHash(mth(d.slice(0, splitPoint(d.length))), mth(d.slice(splitPoint(d.length))));
const path = (m: number, d: Hash[]): Hash[] => {
  if (d.length <= 1) return [];
  const k = splitPoint(d.length);
  return m < k ? [...path(m, d.slice(0, k)), mth(d.slice(k))] : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
};
const subproof = (m: number, d: Hash[], b: boolean): Hash[] => {
  if (m === d.length) return b ? [] : [mth(d)];
  const k = splitPoint(d.length);
  return m <= k ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))] : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
};

function buildTree(count: number) {
  const leaves = Array.from({ length: count }, (_, i) => leafHash(sha256(Buffer.from(`entry ${i}`))));
  const store = new Map<string, Hash>();
  let lookup = (k: NodeKey) => store.get(nodeKeyString(k));
  // Appended in uneven batches, as a checkpointer would.
  let size = 0;
  for (const batch of [1, 2, 5, 3, 8, 13, 21].concat(Array(20).fill(7))) {
    if (size >= count) break;
    const take = leaves.slice(size, Math.min(count, size + batch));
    const r = appendLeaves(size, take, lookup);
    for (const n of r.nodes) store.set(nodeKeyString(n.key), n.hash);
    lookup = (k: NodeKey) => store.get(nodeKeyString(k));
    size += take.length;
  }
  return { leaves, lookup };
}

describe('RFC 9162 Merkle tree from perfect nodes', () => {
  const { leaves, lookup } = buildTree(70);

  it('gives the RFC root for every tree size', () => {
    expect(rootOf(0, lookup).equals(EMPTY_ROOT)).toBe(true);
    for (let n = 1; n <= 70; n += 1) expect(rootOf(n, lookup).toString('hex')).toBe(mth(leaves.slice(0, n)).toString('hex'));
  });

  it('gives the RFC inclusion proof for every leaf of every size', () => {
    for (let n = 1; n <= 70; n += 1) {
      for (let m = 0; m < n; m += 1) {
        const got = hashRanges(inclusionRanges(m, n), lookup).map((h) => h.toString('hex'));
        expect(got).toEqual(path(m, leaves.slice(0, n)).map((h) => h.toString('hex')));
      }
    }
  });

  it('gives the RFC consistency proof for every pair of sizes', () => {
    for (let n = 1; n <= 70; n += 1) {
      for (let m = 1; m < n; m += 1) {
        const got = hashRanges(consistencyRanges(m, n), lookup).map((h) => h.toString('hex'));
        expect(got).toEqual(subproof(m, leaves.slice(0, n), true).map((h) => h.toString('hex')));
      }
    }
    expect(consistencyRanges(5, 5)).toEqual([]);
  });

  it('refuses a leaf outside the tree and names a missing node', () => {
    expect(() => inclusionRanges(3, 3)).toThrow(RangeError);
    expect(() => rootOf(71, lookup)).toThrow(/node 0:70 is missing/);
  });
});
