import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search's copy of the custody log (DESIGN.md "Provenance"), built from `custody.checkpoint` events on
 * platform.custody.v1: the entries (leaves, in Merkle order), the tree's perfect nodes (level, index) from which
 * every root and proof is computed, and the signed checkpoints with whether search's own tree agreed with their
 * root (a checkpoint that did not is kept, and never served).
 */
export class CustodyLog1764700000000 implements MigrationInterface {
  name = 'CustodyLog1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE custody_entries (
        leaf_index bigint PRIMARY KEY,
        diamond_id text NOT NULL,
        entry jsonb NOT NULL,
        entry_hash text NOT NULL,
        context jsonb,
        CONSTRAINT custody_entries_entry_hash UNIQUE (entry_hash)
      )`);
    await q.query(`CREATE INDEX custody_entries_diamond ON custody_entries (diamond_id, leaf_index)`);
    // A child's first entry links to its parent's entry: the EPCIS export looks children up by that link.
    await q.query(`CREATE INDEX custody_entries_prev ON custody_entries ((entry->>'prev_entry_hash')) WHERE entry->>'prev_entry_hash' IS NOT NULL`);
    await q.query(`
      CREATE TABLE custody_tree_nodes (
        level smallint NOT NULL,
        index bigint NOT NULL,
        hash bytea NOT NULL,
        PRIMARY KEY (level, index)
      )`);
    await q.query(`
      CREATE TABLE custody_checkpoints (
        log_id text NOT NULL,
        number bigint NOT NULL,
        tree_size bigint NOT NULL,
        root_hash text NOT NULL,
        timestamp text NOT NULL,
        jws text NOT NULL,
        root_matches boolean NOT NULL,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (log_id, number)
      )`);
    await q.query(`CREATE INDEX custody_checkpoints_good ON custody_checkpoints (number DESC) WHERE root_matches`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS custody_checkpoints`);
    await q.query(`DROP TABLE IF EXISTS custody_tree_nodes`);
    await q.query(`DROP TABLE IF EXISTS custody_entries`);
  }
}
