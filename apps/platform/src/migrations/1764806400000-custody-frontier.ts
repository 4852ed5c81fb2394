import { MigrationInterface, QueryRunner } from 'typeorm';
import { appendLeaves, leafHash, nodeKeyString, rangeNodes } from '@dtp/domain';

/**
 * Platform keeps the Merkle tree's frontier instead of the whole tree: `custody_checkpoints.frontier` holds the
 * hashes of the perfect nodes that make up [0, tree_size) (left to right, at most log2(tree_size) + 1 of them),
 * which is all the checkpointer needs to append leaves and compute the next root. Proofs are served by search,
 * which keeps its own full tree, so platform's `custody_tree_nodes` (two rows per entry, written on every
 * checkpoint) goes. The latest checkpoint's frontier is filled from the nodes before they are dropped; `down`
 * rebuilds the nodes from the entries' leaf order.
 */
export class CustodyFrontier1764806400000 implements MigrationInterface {
  name = 'CustodyFrontier1764806400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE custody_checkpoints ADD COLUMN frontier bytea[]`);
    const [last] = (await q.query(`SELECT number, tree_size FROM custody_checkpoints ORDER BY number DESC LIMIT 1`)) as { number: string; tree_size: string }[];
    if (last) {
      const keys = Number(last.tree_size) > 0 ? rangeNodes(0, Number(last.tree_size)) : [];
      const rows = (await q.query(
        `SELECT n.hash FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY k(level, index, position)
           JOIN custody_tree_nodes n USING (level, index) ORDER BY k.position`,
        [keys.map((k) => k.level), keys.map((k) => k.index)],
      )) as { hash: Buffer }[];
      if (rows.length !== keys.length) throw new Error(`custody checkpoint ${last.number}: ${keys.length - rows.length} of its frontier nodes are missing`);
      await q.query(`UPDATE custody_checkpoints SET frontier = $1::bytea[] WHERE number = $2`, [rows.map((r) => r.hash), last.number]);
    }
    await q.query(`DROP TABLE custody_tree_nodes`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE custody_tree_nodes (
        level int NOT NULL,
        index bigint NOT NULL,
        hash bytea NOT NULL,
        PRIMARY KEY (level, index)
      )`);
    const rows = (await q.query(`SELECT entry_hash FROM custody_entries WHERE leaf_index IS NOT NULL ORDER BY leaf_index`)) as { entry_hash: string }[];
    const store = new Map<string, Buffer>();
    const { nodes } = appendLeaves(
      0,
      rows.map((r) => leafHash(Buffer.from(r.entry_hash, 'hex'))),
      (k) => store.get(nodeKeyString(k)),
    );
    for (let i = 0; i < nodes.length; i += 5000) {
      const chunk = nodes.slice(i, i + 5000);
      await q.query(`INSERT INTO custody_tree_nodes (level, index, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])`, [
        chunk.map((n) => n.key.level),
        chunk.map((n) => n.key.index),
        chunk.map((n) => n.hash),
      ]);
    }
    await q.query(`ALTER TABLE custody_checkpoints DROP COLUMN frontier`);
  }
}
