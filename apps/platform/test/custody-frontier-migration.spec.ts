import { appendLeaves, leafHash, nodeKeyString, rangeNodes, rootOf, sha256 } from '@dtp/domain';
import { createDataSource, runMigrations } from '@dtp/database';
import { createTestDatabase } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';
import { CustodyFrontier1764806400000 } from '../src/migrations/1764806400000-custody-frontier';

/** A database at the custody log's first form (every node stored), with `size` leaves and a checkpoint over them. */
describe('migration CustodyFrontier1764806400000', () => {
  const before = platformMigrations.slice(0, platformMigrations.indexOf(CustodyFrontier1764806400000));
  // Up to this migration and no further: the later ones (custody links, webhooks, ...) are not what is tested here.
  const through = platformMigrations.slice(0, platformMigrations.indexOf(CustodyFrontier1764806400000) + 1);
  const size = 37; // frontier of 3 nodes: 32 + 4 + 1
  const leaves = Array.from({ length: size }, (_, i) => sha256(Buffer.from(`entry ${i}`)));
  const store = new Map<string, Buffer>();
  const { nodes } = appendLeaves(
    0,
    leaves.map((h) => leafHash(h)),
    (k) => store.get(nodeKeyString(k)),
  );
  for (const n of nodes) store.set(nodeKeyString(n.key), n.hash);
  const root = rootOf(size, (k) => store.get(nodeKeyString(k))).toString('hex');

  it("keeps the latest checkpoint's frontier from the stored nodes, drops the nodes, and down rebuilds them from the entries", async () => {
    const url = await createTestDatabase('platform_custody_frontier');
    expect(await runMigrations({ url, service: 'platform', entities: platformEntities, migrations: before })).toHaveLength(before.length);
    const ds = createDataSource({ url, service: 'platform', entities: platformEntities, migrations: through });
    await ds.initialize();
    try {
      for (let i = 0; i < size; i++) {
        await ds.query(
          `INSERT INTO custody_entries (diamond_id, version_id, action, occurred_at, record_sha256, entry_hash, leaf_index) VALUES ($1, $1, 'registered', 't', 'r', $2, $3)`,
          [`d${i}`, leaves[i].toString('hex'), i],
        );
      }
      await ds.query(`INSERT INTO custody_tree_nodes (level, index, hash) SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])`, [
        nodes.map((n) => n.key.level),
        nodes.map((n) => n.key.index),
        nodes.map((n) => n.hash),
      ]);
      await ds.query(
        `INSERT INTO custody_checkpoints (number, tree_size, root_hash, timestamp, kid, jws) VALUES (1, 0, $1, 't', 'k', 'j'), (2, $2, $3, 't', 'k', 'j')`,
        [sha256().toString('hex'), size, root],
      );

      await ds.runMigrations({ transaction: 'each' });
      const [latest] = await ds.query(`SELECT frontier FROM custody_checkpoints WHERE number = 2`);
      const expected = rangeNodes(0, size).map((k) => store.get(nodeKeyString(k))!);
      expect(expected).toHaveLength(3);
      expect((latest.frontier as Buffer[]).map((b) => b.toString('hex'))).toEqual(expected.map((b) => b.toString('hex')));
      // Folding the frontier gives the checkpoint's root.
      const fold = expected.reduceRight((acc, h) => (acc ? sha256(Buffer.from([1]), h, acc) : h), undefined as Buffer | undefined)!;
      expect(fold.toString('hex')).toBe(root);
      const tables = await ds.query(`SELECT 1 FROM pg_tables WHERE tablename = 'custody_tree_nodes'`);
      expect(tables).toHaveLength(0);

      await ds.undoLastMigration({ transaction: 'each' });
      const rebuilt = (await ds.query(`SELECT level, index, hash FROM custody_tree_nodes ORDER BY level, index`)) as {
        level: number;
        index: string;
        hash: Buffer;
      }[];
      expect(rebuilt.map((r) => `${r.level}:${r.index}=${r.hash.toString('hex')}`)).toEqual(
        [...nodes].sort((a, b) => a.key.level - b.key.level || a.key.index - b.key.index).map((n) => `${nodeKeyString(n.key)}=${n.hash.toString('hex')}`),
      );
      const columns = await ds.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'custody_checkpoints' AND column_name = 'frontier'`);
      expect(columns).toHaveLength(0);
    } finally {
      await ds.destroy();
    }
  });

  it("refuses to drop the nodes when the latest checkpoint's frontier is not all there", async () => {
    const url = await createTestDatabase('platform_custody_frontier_missing');
    await runMigrations({ url, service: 'platform', entities: platformEntities, migrations: before });
    const ds = createDataSource({ url, service: 'platform', entities: platformEntities, migrations: through });
    await ds.initialize();
    try {
      await ds.query(`INSERT INTO custody_checkpoints (number, tree_size, root_hash, timestamp, kid, jws) VALUES (1, $1, $2, 't', 'k', 'j')`, [size, root]);
      await expect(ds.runMigrations({ transaction: 'each' })).rejects.toThrow(/custody checkpoint 1: 3 of its frontier nodes are missing/);
      const tables = await ds.query(`SELECT 1 FROM pg_tables WHERE tablename = 'custody_tree_nodes'`);
      expect(tables).toHaveLength(1);
    } finally {
      await ds.destroy();
    }
  });
});
