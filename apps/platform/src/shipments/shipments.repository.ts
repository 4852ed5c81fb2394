import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, In, Repository } from 'typeorm';
import { SHIPMENT_CARAT_ALLOWANCE_PER_DIAMOND, ShipmentType, TransferState } from '@dtp/domain';
import { Sql, Tx } from '@dtp/database';
import { ShipmentDiamondEntity, ShipmentDiamondRow, ShipmentEntity, ShipmentRow } from './shipment.entity';

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

const PARTY_COLUMN: Record<ShipmentParty, 'recipient_id' | 'sender_id'> = { recipient: 'recipient_id', sender: 'sender_id' };

/**
 * `shipments` and `shipment_diamonds`. Reads and plain writes go through the entities (in the caller's `tx`, or
 * the injected repositories on the pool when `tx` is null); guarded counter updates stay raw SQL (see each).
 */
@Injectable()
export class ShipmentsRepository {
  constructor(
    @InjectRepository(ShipmentEntity) private readonly shipments: Repository<ShipmentEntity>,
    @InjectRepository(ShipmentDiamondEntity) private readonly entriesRepo: Repository<ShipmentDiamondEntity>,
  ) {}

  private shipmentsOn(tx: Tx | null): Repository<ShipmentEntity> {
    return tx ? tx.manager.getRepository(ShipmentEntity) : this.shipments;
  }

  private entriesOn(tx: Tx | null): Repository<ShipmentDiamondEntity> {
    return tx ? tx.manager.getRepository(ShipmentDiamondEntity) : this.entriesRepo;
  }

  async insert(tx: Tx, s: ShipmentRow, entries: ShipmentDiamondRow[]): Promise<void> {
    // updateEntity(false): `s` stays as the caller built it (no RETURNING of the defaulted columns merged into it).
    await this.shipmentsOn(tx)
      .createQueryBuilder()
      .insert()
      .values({ ...s, revision: String(s.revision) })
      .updateEntity(false)
      .execute();
    // raw SQL: one statement and one parameter for all entries (up to 1,000): the JSON array becomes typed rows.
    await tx.exec(
      `INSERT INTO shipment_diamonds (shipment_id, diamond_id, position, transfer_state, lifecycle_state, rough, polished, created_at, updated_at)
       SELECT shipment_id, diamond_id, position, transfer_state, lifecycle_state, rough, polished, created_at, updated_at
         FROM jsonb_populate_recordset(NULL::shipment_diamonds, $1::jsonb)`,
      [JSON.stringify(entries)],
    );
  }

  /** The shipment, read in `tx` (locked FOR UPDATE with `lock`). */
  async find(tx: Tx, shipmentId: string, opts: { lock?: boolean } = {}): Promise<ShipmentRow | null> {
    return this.shipmentsOn(tx).findOne({ where: { shipment_id: shipmentId }, ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  }

  // raw SQL: the shipment and its accepted count in one round trip (registration against a shipment box).
  /** The shipment and how many of its diamonds were accepted (for registration against it). */
  async findRegistrable(sql: Sql, shipmentId: string): Promise<RegistrableShipment | null> {
    const rows = await sql.rows<RegistrableShipment>(
      `SELECT s.*, (SELECT count(*)::int FROM shipment_diamonds d WHERE d.shipment_id = s.shipment_id AND d.transfer_state = 'transfer_in_confirmed') AS accepted_count
         FROM shipments s WHERE s.shipment_id = $1`,
      [shipmentId],
    );
    return rows[0] ?? null;
  }

  /**
   * The custody heads (latest entry hashes) of the shipment's accepted diamonds that still exist here, sorted and
   * distinct: what a registration against the shipment links to. A diamond deleted since has no head to link.
   */
  async acceptedHeads(sql: Sql, shipmentId: string): Promise<string[]> {
    const rows = await sql.rows<{ custody_head: string }>(
      `SELECT DISTINCT d.custody_head FROM shipment_diamonds sd JOIN diamonds d ON d.diamond_id = sd.diamond_id
        WHERE sd.shipment_id = $1 AND sd.transfer_state = 'transfer_in_confirmed' AND d.custody_head IS NOT NULL
        ORDER BY d.custody_head`,
      [shipmentId],
    );
    return rows.map((r) => r.custody_head);
  }

  /** The entries of one shipment, in shipping order. */
  async entries(tx: Tx, shipmentId: string): Promise<ShipmentDiamondRow[]> {
    return this.entriesOn(tx).find({ where: { shipment_id: shipmentId }, order: { position: 'ASC' } });
  }

  /** The entries of many shipments, grouped by shipment id, each in shipping order (null `tx`: on the pool). */
  async entriesOf(tx: Tx | null, shipmentIds: string[]): Promise<Map<string, ShipmentDiamondRow[]>> {
    const byShipment = new Map<string, ShipmentDiamondRow[]>(shipmentIds.map((id) => [id, []]));
    if (shipmentIds.length === 0) return byShipment;
    const rows = await this.entriesOn(tx).find({ where: { shipment_id: In(shipmentIds) }, order: { shipment_id: 'ASC', position: 'ASC' } });
    for (const row of rows) byShipment.get(row.shipment_id)?.push(row);
    return byShipment;
  }

  /** Sets the transfer_state of the given entries (all pending: the caller checked under the shipment lock). */
  async answer(tx: Tx, shipmentId: string, diamondIds: string[], state: TransferState, now: Date): Promise<number> {
    if (diamondIds.length === 0) return 0;
    const r = await this.entriesOn(tx).update(
      { shipment_id: shipmentId, diamond_id: In(diamondIds), transfer_state: 'transfer_in_pending' },
      { transfer_state: state, updated_at: now },
    );
    return r.affected ?? 0;
  }

  /** Writes status, revision and updated_at of a (locked) shipment. */
  async saveState(tx: Tx, s: ShipmentRow): Promise<void> {
    const r = await this.shipmentsOn(tx).update({ shipment_id: s.shipment_id }, { status: s.status, revision: String(s.revision), updated_at: s.updated_at });
    if (r.affected !== 1) throw new Error(`shipment ${s.shipment_id} vanished during an update`);
  }

  /** One page of a participant's shipments in a stable order (created_at, shipment_id), and the total. */
  async page(tx: Tx | null, q: ShipmentPageQuery): Promise<{ rows: ShipmentRow[]; total: number }> {
    const where: FindOptionsWhere<ShipmentEntity> = { [PARTY_COLUMN[q.party]]: q.participantId };
    if (q.shipmentType) where.shipment_type = q.shipmentType;
    const [rows, total] = await this.shipmentsOn(tx).findAndCount({ where, order: { created_at: 'ASC', shipment_id: 'ASC' }, take: q.limit, skip: q.offset });
    return { rows, total };
  }

  // raw SQL: a guarded counter update in one statement (concurrent registrations serialise on the row).
  /**
   * Reserves one registration of `carats` against the shipment: one guarded UPDATE of its counters, so
   * concurrent registrations serialise on the row and none can pass the limits (count <= total_diamonds, weight
   * <= total carats + 0.01 ct per shipped diamond). Runs in the registration's transaction: a failed insert
   * rolls the reservation back.
   */
  async reserve(sql: Tx, shipmentId: string, carats: string): Promise<Reservation> {
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

  // raw SQL: one UPDATE for all boxes, from a JSON recordset.
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
