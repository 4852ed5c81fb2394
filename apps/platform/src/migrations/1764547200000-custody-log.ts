import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The custody log (DESIGN.md "Provenance", docs/provenance.md): its entries (written in the transaction of each
 * change of a diamond), the Merkle tree's perfect nodes, the signed checkpoints, the checkpoint signing key, and
 * `diamonds.custody_head` (the diamond's latest entry_hash, read with the locked row to link the next entry).
 * No foreign key to diamonds: a deleted diamond's entries stay (the log is append-only).
 */
export class CustodyLog1764547200000 implements MigrationInterface {
  name = 'CustodyLog1764547200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE diamonds ADD COLUMN custody_head text`);
    await q.query(`
      CREATE TABLE custody_entries (
        seq bigserial PRIMARY KEY,
        diamond_id text NOT NULL,
        version_id text NOT NULL,
        action text NOT NULL,
        actor_participant_id text,
        occurred_at text NOT NULL,
        record_sha256 text NOT NULL,
        prev_entry_hash text,
        entry_hash text NOT NULL,
        context jsonb,
        leaf_index bigint
      )`);
    // No unique index on entry_hash or leaf_index: each is one more index write per change on the registration hot
    // path. entry_hash is unique by construction (the hashed entry holds the new version_id, a fresh ULID), and a
    // leaf index can only be given once: the checkpointer stores each leaf as tree node (0, leaf_index), whose
    // primary key refuses a second one (rolling the checkpoint back).
    // The checkpointer's queue: entries not in the tree yet, in seq order. No index by diamond: platform never looks
    // entries up (search serves them from its own copy), and every index is paid on the registration hot path.
    await q.query(`CREATE INDEX custody_entries_pending ON custody_entries (seq) WHERE leaf_index IS NULL`);
    await q.query(`
      CREATE TABLE custody_tree_nodes (
        level int NOT NULL,
        index bigint NOT NULL,
        hash bytea NOT NULL,
        PRIMARY KEY (level, index)
      )`);
    await q.query(`
      CREATE TABLE custody_checkpoints (
        number bigint PRIMARY KEY CHECK (number >= 1),
        tree_size bigint NOT NULL CHECK (tree_size >= 0),
        root_hash text NOT NULL,
        timestamp text NOT NULL,
        kid text NOT NULL,
        jws text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE custody_signing_keys (
        kid text PRIMARY KEY,
        public_jwk jsonb NOT NULL,
        private_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE custody_signing_keys`);
    await q.query(`DROP TABLE custody_checkpoints`);
    await q.query(`DROP TABLE custody_tree_nodes`);
    await q.query(`DROP TABLE custody_entries`);
    await q.query(`ALTER TABLE diamonds DROP COLUMN custody_head`);
  }
}
