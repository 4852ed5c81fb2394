/**
 * The RFC 9162 verifiers against the proofs @dtp/domain's Merkle code generates (what platform and search serve):
 * every inclusion and consistency proof of every tree size 1..40 verifies, and one flipped byte anywhere fails.
 */
import { createHash } from 'node:crypto';
import {
  appendLeaves,
  canonicalJson as domainCanonicalJson,
  consistencyRanges,
  Hash,
  hashRanges,
  inclusionRanges,
  leafHash,
  NodeKey,
  nodeKeyString,
  rootOf,
} from '@dtp/domain';
import { canonicalJson, consistencyProblem, rootFromInclusionProof, sha256Hex, verifyConsistency, verifyInclusion } from '../src';

const MAX = 40;
const entryHashes = Array.from({ length: MAX }, (_, i) => createHash('sha256').update(`entry ${i}`).digest('hex'));
const nodes = new Map<string, Hash>();
const lookup = (k: NodeKey) => nodes.get(nodeKeyString(k));
for (let i = 0; i < MAX; i += 1) {
  for (const n of appendLeaves(i, [leafHash(Buffer.from(entryHashes[i], 'hex'))], lookup).nodes) nodes.set(nodeKeyString(n.key), n.hash);
}
const root = (n: number) => rootOf(n, lookup).toString('hex');
const inclusion = (m: number, n: number) => hashRanges(inclusionRanges(m, n), lookup).map((h) => h.toString('hex'));
const consistency = (m: number, n: number) => hashRanges(consistencyRanges(m, n), lookup).map((h) => h.toString('hex'));
/** The same hash with one byte changed (which byte varies with `salt`). */
const flip = (hex: string, salt: number) => {
  const at = (salt * 7) % 32;
  const byte = (parseInt(hex.slice(at * 2, at * 2 + 2), 16) ^ 0x01).toString(16).padStart(2, '0');
  return hex.slice(0, at * 2) + byte + hex.slice(at * 2 + 2);
};

describe('inclusion proofs (RFC 9162 2.1.3.2)', () => {
  it(`every leaf of every tree size 1..${MAX} verifies, and leads to domain's root`, async () => {
    let checked = 0;
    for (let n = 1; n <= MAX; n += 1) {
      for (let m = 0; m < n; m += 1) {
        const input = { leafIndex: m, treeSize: n, entryHash: entryHashes[m], proof: inclusion(m, n) };
        expect(await rootFromInclusionProof(input)).toBe(root(n));
        expect(await verifyInclusion({ ...input, rootHash: root(n) })).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });

  it('a flipped byte in any proof step, in the entry hash or in the root fails; so does another index, or the next tree', async () => {
    for (let n = 1; n <= MAX; n += 1) {
      for (let m = 0; m < n; m += 1) {
        const proof = inclusion(m, n);
        const base = { leafIndex: m, treeSize: n, entryHash: entryHashes[m], proof, rootHash: root(n) };
        for (let i = 0; i < proof.length; i += 1) {
          expect(await verifyInclusion({ ...base, proof: proof.map((h, j) => (j === i ? flip(h, m + n + i) : h)) })).toBe(false);
        }
        expect(await verifyInclusion({ ...base, entryHash: flip(entryHashes[m], m) })).toBe(false);
        expect(await verifyInclusion({ ...base, rootHash: flip(root(n), n) })).toBe(false);
        if (n > 1) expect(await verifyInclusion({ ...base, leafIndex: (m + 1) % n })).toBe(false);
        // The proof of the tree of n does not prove the leaf in the tree of n + 1 (the signed checkpoint binds size and root).
        if (n < MAX) expect(await verifyInclusion({ ...base, treeSize: n + 1, rootHash: root(n + 1) })).toBe(false);
      }
    }
  });

  it('refuses a leaf outside the tree, a proof too long or too short, a step that is not a hash', async () => {
    const proof = inclusion(5, 20);
    await expect(rootFromInclusionProof({ leafIndex: 20, treeSize: 20, entryHash: entryHashes[0], proof })).rejects.toThrow('leaf 20 is not in a tree of 20');
    await expect(rootFromInclusionProof({ leafIndex: 5, treeSize: 20, entryHash: entryHashes[5], proof: [...proof, proof[0]] })).rejects.toThrow(
      /more than a tree of 20 needs/,
    );
    await expect(rootFromInclusionProof({ leafIndex: 5, treeSize: 20, entryHash: entryHashes[5], proof: proof.slice(1) })).rejects.toThrow(
      /fewer than a tree of 20 needs/,
    );
    await expect(rootFromInclusionProof({ leafIndex: 5, treeSize: 20, entryHash: entryHashes[5], proof: ['xyz'] })).rejects.toThrow(
      /step 0 of the inclusion proof/,
    );
  });
});

describe('consistency proofs (RFC 9162 2.1.4.2)', () => {
  it(`every pair of tree sizes 1 <= m <= n <= ${MAX} verifies`, async () => {
    let checked = 0;
    for (let n = 1; n <= MAX; n += 1) {
      for (let m = 1; m <= n; m += 1) {
        expect(await consistencyProblem({ fromSize: m, fromRoot: root(m), toSize: n, toRoot: root(n), proof: consistency(m, n) })).toBeNull();
        checked += 1;
      }
    }
    expect(checked).toBe((MAX * (MAX + 1)) / 2);
  });

  it('a flipped byte in any step or either root fails; so do other sizes', async () => {
    for (let n = 2; n <= MAX; n += 1) {
      for (let m = 1; m < n; m += 1) {
        const proof = consistency(m, n);
        const base = { fromSize: m, fromRoot: root(m), toSize: n, toRoot: root(n), proof };
        for (let i = 0; i < proof.length; i += 1) {
          expect(await verifyConsistency({ ...base, proof: proof.map((h, j) => (j === i ? flip(h, m * n + i) : h)) })).toBe(false);
        }
        expect(await verifyConsistency({ ...base, fromRoot: flip(root(m), m) })).toBe(false);
        expect(await verifyConsistency({ ...base, toRoot: flip(root(n), n) })).toBe(false);
        if (m + 1 < n) expect(await verifyConsistency({ ...base, fromSize: m + 1, fromRoot: root(m + 1) })).toBe(false);
      }
    }
  });

  it('a smaller newer tree is a rollback; empty and equal trees; an empty proof between different sizes', async () => {
    expect(await consistencyProblem({ fromSize: 9, fromRoot: root(9), toSize: 8, toRoot: root(8), proof: [] })).toBe(
      'the log was rolled back: tree size 8 is smaller than 9, seen before',
    );
    expect(await verifyConsistency({ fromSize: 0, fromRoot: root(1), toSize: 7, toRoot: root(7), proof: [] })).toBe(true);
    expect(await verifyConsistency({ fromSize: 7, fromRoot: root(7), toSize: 7, toRoot: root(7), proof: [] })).toBe(true);
    expect(await consistencyProblem({ fromSize: 7, fromRoot: root(6), toSize: 7, toRoot: root(7), proof: [] })).toMatch(
      /two different roots for the same tree size 7/,
    );
    expect(await consistencyProblem({ fromSize: 3, fromRoot: root(3), toSize: 7, toRoot: root(7), proof: [] })).toBe(
      'the consistency proof from 3 to 7 is empty',
    );
  });
});

describe('hashing', () => {
  it('sha256Hex: the FIPS 180-2 "abc" vector, text as UTF-8, bytes as they are', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex('é')).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
  });

  it('canonicalJson is RFC 8785 and the same as the server side', () => {
    const value = { b: [1, 1e21, 0.1, -0], a: { z: null, é: 'ü', '\u20ac': '\u0007' }, c: 1.5e-7 };
    expect(canonicalJson(value)).toBe(domainCanonicalJson(value));
    expect(canonicalJson(value)).toBe('{"a":{"z":null,"é":"ü","€":"\\u0007"},"b":[1,1e+21,0.1,0],"c":1.5e-7}');
    expect(() => canonicalJson(undefined)).toThrow('value has no JSON form');
  });
});
