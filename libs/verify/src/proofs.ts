import { fromHex, sha256, toHex } from './hashing';

/**
 * RFC 9162 Merkle proof *verification* (2.1.3.2 inclusion, 2.1.4.2 consistency), on WebCrypto. Hashes are
 * lower-case hex at the edges. Leaf = SHA-256(0x00 || entry_hash bytes), node = SHA-256(0x01 || left || right).
 */

const LEAF = Uint8Array.of(0x00);
const NODE = Uint8Array.of(0x01);

const leafHash = (entryHash: Uint8Array) => sha256(LEAF, entryHash);
const nodeHash = (left: Uint8Array, right: Uint8Array) => sha256(NODE, left, right);
const isSize = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A proof that does not verify; `message` says why. */
export class ProofError extends Error {
  override name = 'ProofError';
}

export interface InclusionInput {
  leafIndex: number;
  treeSize: number;
  /** Hex entry_hash of the entry (the leaf hash is computed from it). */
  entryHash: string;
  /** Hex hashes, RFC 9162 2.1.3.1 order (leaf side first). */
  proof: string[];
}

/**
 * The root hash (hex) that an inclusion proof leads to (RFC 9162 2.1.3.2 steps 1-4); throws a ProofError when the
 * proof cannot belong to a tree of that size (too long, too short, leaf outside the tree, a step not a hash).
 */
export async function rootFromInclusionProof({ leafIndex, treeSize, entryHash, proof }: InclusionInput): Promise<string> {
  if (!isSize(leafIndex) || !isSize(treeSize) || leafIndex >= treeSize) throw new ProofError(`leaf ${leafIndex} is not in a tree of ${treeSize}`);
  if (!Array.isArray(proof)) throw new ProofError('the inclusion proof is not a list of hashes');
  const steps = hashes(proof, 'inclusion proof');
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = await leafHash(fromHex(entryHash));
  for (const p of steps) {
    if (sn === 0) throw new ProofError(`the inclusion proof has ${steps.length} steps, more than a tree of ${treeSize} needs`);
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw new ProofError(`the inclusion proof has ${steps.length} steps, fewer than a tree of ${treeSize} needs`);
  return toHex(r);
}

/** Does the inclusion proof lead from the entry to `rootHash`? */
export async function verifyInclusion(input: InclusionInput & { rootHash: string }): Promise<boolean> {
  return (await inclusionProblem(input)) === null;
}

/** Why the inclusion proof fails, or null when it verifies. */
export async function inclusionProblem(input: InclusionInput & { rootHash: string }): Promise<string | null> {
  try {
    const root = await rootFromInclusionProof(input);
    return root === input.rootHash ? null : `the inclusion proof leads to root ${root}, not the checkpoint's ${input.rootHash}`;
  } catch (err) {
    return (err as Error).message;
  }
}

export interface ConsistencyInput {
  /** The older tree: size and hex root. */
  fromSize: number;
  fromRoot: string;
  /** The newer tree. */
  toSize: number;
  toRoot: string;
  /** Hex hashes, RFC 9162 2.1.4.1. */
  proof: string[];
}

/** Is the tree of `toSize` an append-only extension of the tree of `fromSize` (RFC 9162 2.1.4.2)? */
export async function verifyConsistency(input: ConsistencyInput): Promise<boolean> {
  return (await consistencyProblem(input)) === null;
}

/** Why the consistency proof fails (a smaller newer tree is a rollback), or null when it verifies. */
export async function consistencyProblem({ fromSize, fromRoot, toSize, toRoot, proof }: ConsistencyInput): Promise<string | null> {
  try {
    if (!isSize(fromSize) || !isSize(toSize)) return `tree sizes ${fromSize} and ${toSize} are not sizes`;
    if (toSize < fromSize) return `the log was rolled back: tree size ${toSize} is smaller than ${fromSize}, seen before`;
    if (!Array.isArray(proof)) return 'the consistency proof is not a list of hashes';
    const first = fromHex(fromRoot);
    const second = fromHex(toRoot);
    const steps = hashes(proof, 'consistency proof');
    if (fromSize === toSize) {
      if (steps.length !== 0) return `a consistency proof between two trees of size ${toSize} must be empty`;
      return equal(first, second) ? null : `two different roots for the same tree size ${toSize}: ${fromRoot} seen before, ${toRoot} now`;
    }
    if (fromSize === 0) return steps.length === 0 ? null : 'a consistency proof from the empty tree must be empty';
    if (steps.length === 0) return `the consistency proof from ${fromSize} to ${toSize} is empty`;
    // RFC 9162 2.1.4.2 steps 2-8.
    const c = isPowerOfTwo(fromSize) ? [first, ...steps] : steps;
    let fn = fromSize - 1;
    let sn = toSize - 1;
    while (odd(fn)) {
      fn = half(fn);
      sn = half(sn);
    }
    let fr = c[0];
    let sr = c[0];
    for (const step of c.slice(1)) {
      if (sn === 0) return `the consistency proof from ${fromSize} to ${toSize} has more steps than it needs`;
      if (odd(fn) || fn === sn) {
        fr = await nodeHash(step, fr);
        sr = await nodeHash(step, sr);
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      } else {
        sr = await nodeHash(sr, step);
      }
      fn = half(fn);
      sn = half(sn);
    }
    if (sn !== 0) return `the consistency proof from ${fromSize} to ${toSize} has fewer steps than it needs`;
    if (!equal(fr, first))
      return `the tree of size ${toSize} does not contain the tree of size ${fromSize} seen before (root ${toHex(fr)} instead of ${fromRoot})`;
    if (!equal(sr, second)) return `the consistency proof from ${fromSize} leads to root ${toHex(sr)}, not ${toRoot} of tree size ${toSize}`;
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

function hashes(list: unknown[], what: string): Uint8Array[] {
  return list.map((h, i) => {
    if (typeof h !== 'string' || !/^[0-9a-f]{64}$/.test(h)) throw new ProofError(`step ${i} of the ${what} is not a lower-case hex SHA-256`);
    return fromHex(h);
  });
}
