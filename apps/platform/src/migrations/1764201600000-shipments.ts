import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shipments and transfers (docs/lifecycle.md): a shipment, its diamond entries (a snapshot of each diamond's
 * summary as shipped, plus its transfer_state), the registration counters of rough shipments, and the
 * `held_back_at` mark of graded measurements that did not travel with an accepted diamond (only the active one is
 * transferred downstream).
 */
export class Shipments1764201600000 implements MigrationInterface {
  name = 'Shipments1764201600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE shipments (
        shipment_id text PRIMARY KEY CHECK (shipment_id ~ '^[a-z0-9]{20,98}$'),
        name text NOT NULL,
        shipment_type text NOT NULL CHECK (shipment_type IN ('rough', 'polished')),
        status text NOT NULL CHECK (status IN ('action_required', 'completed')),
        sender_id text NOT NULL,
        recipient_id text NOT NULL CHECK (recipient_id <> sender_id),
        sender_base_url text NOT NULL,
        total_diamonds integer NOT NULL CHECK (total_diamonds >= 1),
        -- Sum of the shipped diamonds' carats (rough carats for rough shipments, polished carats for polished ones).
        total_carats numeric NOT NULL CHECK (total_carats >= 0),
        -- Inherited by diamonds registered against an accepted rough shipment.
        producer_uuid text NOT NULL,
        provenance jsonb NOT NULL,
        -- Diamonds registered against the shipment (box_id = shipment_id) and their running weight.
        registered_count integer NOT NULL DEFAULT 0 CHECK (registered_count >= 0 AND registered_count <= total_diamonds),
        registered_carats numeric NOT NULL DEFAULT 0 CHECK (registered_carats >= 0),
        revision bigint NOT NULL CHECK (revision >= 1),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX shipments_recipient ON shipments (recipient_id, created_at, shipment_id)`);
    await q.query(`CREATE INDEX shipments_recipient_type ON shipments (recipient_id, shipment_type, created_at, shipment_id)`);
    await q.query(`CREATE INDEX shipments_sender ON shipments (sender_id, created_at, shipment_id)`);
    await q.query(`CREATE INDEX shipments_sender_type ON shipments (sender_id, shipment_type, created_at, shipment_id)`);
    // No foreign key to diamonds: an entry is a record of what was shipped and outlives a later deletion.
    await q.query(`
      CREATE TABLE shipment_diamonds (
        shipment_id text NOT NULL REFERENCES shipments (shipment_id) ON DELETE CASCADE,
        diamond_id text NOT NULL,
        position integer NOT NULL,
        transfer_state text NOT NULL CHECK (transfer_state IN ('transfer_in_pending', 'transfer_in_confirmed', 'transfer_in_rejected')),
        lifecycle_state text NOT NULL,
        rough jsonb,
        polished jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (shipment_id, diamond_id),
        UNIQUE (shipment_id, position)
      )`);
    await q.query(`CREATE INDEX shipment_diamonds_diamond ON shipment_diamonds (diamond_id)`);
    // A diamond waits in at most one shipment, whatever the interleaving (the row locks decide first).
    await q.query(`CREATE UNIQUE INDEX shipment_diamonds_one_pending ON shipment_diamonds (diamond_id) WHERE transfer_state = 'transfer_in_pending'`);
    await q.query(`ALTER TABLE graded_measurements ADD COLUMN held_back_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE graded_measurements DROP COLUMN IF EXISTS held_back_at`);
    await q.query(`DROP TABLE IF EXISTS shipment_diamonds`);
    await q.query(`DROP TABLE IF EXISTS shipments`);
  }
}
