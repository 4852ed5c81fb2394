import { Inject, Injectable } from '@nestjs/common';
import {
  ConsistencyAnswer,
  consistencyRanges,
  CustodyAnswer,
  CustodyCheckpoint,
  hashRanges,
  IndexedCustodyEntry,
  inclusionRanges,
  invalidFields,
  nodeKeyString,
  nodesFor,
} from '@dtp/domain';
import { CustodyRepository, StoredCheckpoint } from './custody.repository';

/** A checkpoint as served (its number stays inside search). */
const served = ({ log_id, tree_size, root_hash, timestamp, jws }: StoredCheckpoint): CustodyCheckpoint => ({ log_id, tree_size, root_hash, timestamp, jws });

/** A diamond's chain as covered by the latest good checkpoint (no proofs): what the EPCIS export maps. */
export interface CustodyChain {
  checkpoint: CustodyCheckpoint;
  entries: IndexedCustodyEntry[];
}

/**
 * Answers of the custody routes, from search's own copy of the log and only against checkpoints whose root search
 * reproduced. Exported by CustodyModule: the passport's public JSON route answers `answerFor` too.
 */
@Injectable()
export class CustodyQueries {
  constructor(@Inject(CustodyRepository) private readonly repo: CustodyRepository) {}

  /** The latest checkpoint search serves, or null before the first good one. */
  async latestCheckpoint(): Promise<CustodyCheckpoint | null> {
    const cp = await this.repo.latestGoodCheckpoint();
    return cp ? served(cp) : null;
  }

  /** The diamond's chain under the latest good checkpoint, or null when that checkpoint covers none of its entries. */
  async chainFor(diamondId: string): Promise<CustodyChain | null> {
    const cp = await this.repo.latestGoodCheckpoint();
    if (!cp || cp.tree_size === 0) return null;
    const entries = await this.repo.chain(diamondId, cp.tree_size);
    return entries.length > 0 ? { checkpoint: served(cp), entries } : null;
  }

  /** The diamonds whose first entry links to each of `entryHashes` (a polish's or split's outputs), under `treeSize`. */
  childrenOf(entryHashes: string[], treeSize: number): Promise<Map<string, string[]>> {
    return this.repo.childrenOf(entryHashes, treeSize);
  }

  /**
   * `GET /v1/diamonds/{id}/custody`: the chain, each entry with its inclusion proof against the checkpoint (the
   * nodes of every proof read in ONE query). Null when the diamond has no entry under a served checkpoint.
   */
  async answerFor(diamondId: string): Promise<CustodyAnswer | null> {
    const chain = await this.chainFor(diamondId);
    if (!chain) return null;
    const size = chain.checkpoint.tree_size;
    const ranges = chain.entries.map((e) => inclusionRanges(e.leaf_index, size));
    const nodes = await this.repo.nodes(nodesFor(ranges.flat()));
    const lookup = (k: Parameters<typeof nodeKeyString>[0]) => nodes.get(nodeKeyString(k));
    return {
      checkpoint: chain.checkpoint,
      entries: chain.entries.map((e, i) => ({ ...e, inclusion_proof: hashRanges(ranges[i], lookup).map((h) => h.toString('hex')) })),
    };
  }

  /**
   * `GET /v1/custody/consistency`: the RFC 9162 consistency proof from tree size `from` to `to`, both at most the
   * latest served checkpoint's size (else 422 naming the field).
   */
  async consistency(from: number, to: number): Promise<ConsistencyAnswer> {
    if (from > to) throw invalidFields([{ loc: ['query', 'from'], msg: `from (${from}) must not be greater than to (${to})`, type: 'less_than_equal' }]);
    const cp = await this.repo.latestGoodCheckpoint();
    const latest = cp?.tree_size ?? 0;
    if (to > latest) {
      throw invalidFields([
        { loc: ['query', 'to'], msg: `to (${to}) must not be greater than the latest checkpoint's tree size (${latest})`, type: 'less_than_equal' },
      ]);
    }
    const ranges = consistencyRanges(from, to);
    const nodes = await this.repo.nodes(nodesFor(ranges));
    return { from, to, proof: hashRanges(ranges, (k) => nodes.get(nodeKeyString(k))).map((h) => h.toString('hex')) };
  }
}
