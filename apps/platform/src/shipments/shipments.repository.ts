import { Injectable } from '@nestjs/common';
import { SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND, ShipmentType, TransferState } from '@dtp/domain';
import { Sql } from '@dtp/database';
import { ShipmentDiamondRow, ShipmentRow } from './shipment.row';

/** Whose shipments a list shows: the recipient's (inbound) or the sender's (outbound). */
export type ShipmentParty = 'recipient' | 'sender';

export interface ShipmentPageQuery {
  party: ShipmentParty;
  participantId: string;
  shipmentType?: ShipmentType;
  limit: number;
  offset: number;
}

/** A rough shipment as registration sees it. */
export interface RegistrableShipment extends ShipmentRow {
  accepted_count: number;
}

/** The outcome of reserving one registration against a shipment (a guarded counter update). */
export type Reservation = { ok: true } | { ok: false; shipment: ShipmentRow };

const PARTY_COLUMN: Record<ShipmentParty, string> = { recipient: 'recipient_id', sender: 'sender_id' };

/** SQL over `shipments` and `shipment_diamonds`. Every method takes the Sql of the caller's transaction (or the pool). */
@Injectable()
export class ShipmentsRepository {
  async insert(sql: Sql, s: ShipmentRow, entries: ShipmentDiamondRow[]): Promise<void> {
    await sql.exec(
      `INSERT INTO shipments (shipment_id, name, shipment_type, status, sender_id, recipient_id, sender_base_url, total_diamonds,
                              total_carats, producer_uuid, provenance, registered_count, registered_carats, revision, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10, $11::jsonb, $12, $13::numeric, $14, $15, $16)`,
      [
        s.shipment_id, s.name, s.shipment_type, s.status, s.sender_id, s.recipient_id, s.sender_base_url, s.total_diamonds,
        s.total_carats, s.producer_uuid, JSON.stringify(s.provenance), s.registered_count, s.registered_carats, s.revision,
        s.created_at, s.updated_at,
      ],
    );
    // One statement for all entries (up to 1,000): the JSON array becomes typed rows.
    await sql.exec(
      `INSERT INTO shipment_diamonds (shipment_id, diamond_id, position, transfer_state, lifecycle_state, rough, polished, created_at, updated_at)
       SELECT shipment_id, diamond_id, position, transfer_state, lifecycle_state, rough, polished, created_at, updated_at
         FROM jsonb_populate_recordset(NULL::shipment_diamonds, $1::jsonb)`,
      [JSON.stringify(entries)],
    );
  }

  async find(sql: Sql, shipmentId: string, opts: { lock?: boolean } = {}): Promise<ShipmentRow | null> {
    const rows = await sql.rows<ShipmentRow>(`SELECT * FROM shipments WHERE shipment_id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [shipmentId]);
    return rows[0] ?? null;
  }

  /** The shipment and how many of its diamonds were accepted (for registration against it). */
  async findRegistrable(sql: Sql, shipmentId: string): Promise<RegistrableShipment | null> {
    const rows = await sql.rows<RegistrableShipment>(
      `SELECT s.*, (SELECT count(*)::int FROM shipment_diamonds d WHERE d.shipment_id = s.shipment_id AND d.transfer_state = 'transfer_in_confirmed') AS accepted_count
         FROM shipments s WHERE s.shipment_id = $1`,
      [shipmentId],
    );
    return rows[0] ?? null;
  }

  /** The entries of one shipment, in shipping order. */
  async entries(sql: Sql, shipmentId: string): Promise<ShipmentDiamondRow[]> {
    return sql.rows<ShipmentDiamondRow>(`SELECT * FROM shipment_diamonds WHERE shipment_id = $1 ORDER BY position`, [shipmentId]);
  }

  /** The entries of many shipments, grouped by shipment id, each in shipping order. */
  async entriesOf(sql: Sql, shipmentIds: string[]): Promise<Map<string, ShipmentDiamondRow[]>> {
    const byShipment = new Map<string, ShipmentDiamondRow[]>(shipmentIds.map((id) => [id, []]));
    if (shipmentIds.length === 0) return byShipment;
    const rows = await sql.rows<ShipmentDiamondRow>(
      `SELECT * FROM shipment_diamonds WHERE shipment_id = ANY($1::text[]) ORDER BY shipment_id, position`,
      [shipmentIds],
    );
    for (const row of rows) byShipment.get(row.shipment_id)?.push(row);
    return byShipment;
  }

  /** Sets the transfer_state of the given entries (all pending: the caller checked under the shipment lock). */
  async answer(sql: Sql, shipmentId: string, diamondIds: string[], state: TransferState, now: Date): Promise<number> {
    return sql.exec(
      `UPDATE shipment_diamonds SET transfer_state = $3, updated_at = $4
        WHERE shipment_id = $1 AND diamond_id = ANY($2::text[]) AND transfer_state = 'transfer_in_pending'`,
      [shipmentId, diamondIds, state, now],
    );
  }

  /** Writes status, revision and updated_at of a (locked) shipment. */
  async saveState(sql: Sql, s: ShipmentRow): Promise<void> {
    const n = await sql.exec(`UPDATE shipments SET status = $2, revision = $3, updated_at = $4 WHERE shipment_id = $1`, [
      s.shipment_id, s.status, s.revision, s.updated_at,
    ]);
    if (n !== 1) throw new Error(`shipment ${s.shipment_id} vanished during an update`);
  }

  /** One page of a participant's shipments in a stable order (created_at, shipment_id), and the total. */
  async page(sql: Sql, q: ShipmentPageQuery): Promise<{ rows: ShipmentRow[]; total: number }> {
    const where = `${PARTY_COLUMN[q.party]} = $1${q.shipmentType ? ' AND shipment_type = $2' : ''}`;
    const params: unknown[] = q.shipmentType ? [q.participantId, q.shipmentType] : [q.participantId];
    const [count] = await sql.rows<{ n: number }>(`SELECT count(*)::int AS n FROM shipments WHERE ${where}`, params);
    const rows = await sql.rows<ShipmentRow>(
      `SELECT * FROM shipments WHERE ${where} ORDER BY created_at, shipment_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.limit, q.offset],
    );
    return { rows, total: count.n };
  }

  /**
   * Reserves one registration of `carats` against the shipment: one guarded UPDATE of its counters, so
   * concurrent registrations serialise on the row and none can pass the limits (count <= total_diamonds, weight
   * <= total carats + 0.01 ct per shipped diamond). Runs in the registration's transaction: a failed insert
   * rolls the reservation back.
   */
  async reserve(sql: Sql, shipmentId: string, carats: string): Promise<Reservation> {
    const n = await sql.exec(
      `UPDATE shipments SET registered_count = registered_count + 1, registered_carats = registered_carats + $2::numeric
        WHERE shipment_id = $1
          AND registered_count < total_diamonds
          AND registered_carats + $2::numeric <= total_carats + $3::numeric * total_diamonds`,
      [shipmentId, carats, SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND],
    );
    if (n === 1) return { ok: true };
    const shipment = await this.find(sql, shipmentId, { lock: true });
    if (!shipment) throw new Error(`shipment ${shipmentId} vanished during a registration`);
    return { ok: false, shipment };
  }

  /**
   * Gives back the registrations of diamonds about to be deleted (so a corrected diamond can be registered
   * again): `byBox` as DiamondsRepository.registrationsByBox counts them; boxes that are no shipment are ignored.
   */
  async releaseRegistrations(sql: Sql, byBox: { box_scope: string; n: number; carats: string }[]): Promise<void> {
    if (byBox.length === 0) return;
    await sql.exec(
      `UPDATE shipments s SET registered_count = s.registered_count - x.n, registered_carats = s.registered_carats - x.carats
         FROM jsonb_to_recordset($1::jsonb) AS x(box_scope text, n int, carats numeric)
        WHERE s.shipment_id = x.box_scope`,
      [JSON.stringify(byBox)],
    );
  }
}
