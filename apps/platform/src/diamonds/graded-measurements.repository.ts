import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, Repository } from 'typeorm';
import type { GradedMeasurementSource, GradingData } from '@dtp/domain';
import { Sql, Tx } from '@dtp/database';
import { GradedMeasurementEntity, GradedMeasurementRow } from './graded-measurement.entity';

export interface NewGradedMeasurement {
  id: string;
  diamond_id: string;
  source: GradedMeasurementSource;
  data: GradingData;
  created_by: string | null;
}

/** `graded_measurements`. At most one active record per diamond (partial unique index). */
@Injectable()
export class GradedMeasurementsRepository {
  constructor(@InjectRepository(GradedMeasurementEntity) private readonly graded: Repository<GradedMeasurementEntity>) {}

  private on(tx: Tx | null): Repository<GradedMeasurementEntity> {
    return tx ? tx.manager.getRepository(GradedMeasurementEntity) : this.graded;
  }

  /** The records the holder sees (none held back), oldest first; in `tx` (null: outside a transaction). */
  async list(tx: Tx | null, diamondId: string): Promise<GradedMeasurementRow[]> {
    return this.on(tx).find({ where: { diamond_id: diamondId, held_back_at: IsNull() }, order: { created_at: 'ASC', id: 'ASC' } });
  }

  async active(tx: Tx, diamondId: string): Promise<GradedMeasurementRow | null> {
    return this.on(tx).findOneBy({ diamond_id: diamondId, is_active: true });
  }

  /** The active record of each of the given diamonds (those that have one). */
  async activeMany(tx: Tx, diamondIds: string[]): Promise<GradedMeasurementRow[]> {
    if (diamondIds.length === 0) return [];
    return this.on(tx).findBy({ diamond_id: In(diamondIds), is_active: true });
  }

  /**
   * On a transfer only the active record travels downstream: the others are held back (kept, but no longer
   * listed or selectable for anyone). Returns how many were held back.
   */
  async holdBackInactive(tx: Tx, diamondIds: string[]): Promise<number> {
    if (diamondIds.length === 0) return 0;
    const r = await this.on(tx).update(
      { diamond_id: In(diamondIds), is_active: false, held_back_at: IsNull() },
      { held_back_at: () => 'clock_timestamp()', updated_at: () => 'clock_timestamp()' },
    );
    return r.affected ?? 0;
  }

  async find(tx: Tx, diamondId: string, id: string): Promise<GradedMeasurementRow | null> {
    return this.on(tx).findOneBy({ diamond_id: diamondId, id, held_back_at: IsNull() });
  }

  // raw SQL: the whole new row back in one round trip (RETURNING *), and ON CONFLICT DO NOTHING for redeliveries.
  /** Inserts; with `ifAbsent` a record whose id exists already is left alone (returns null). */
  async insert(sql: Sql, gm: NewGradedMeasurement, opts: { ifAbsent?: boolean } = {}): Promise<GradedMeasurementRow | null> {
    const rows = await sql.rows<GradedMeasurementRow>(
      `INSERT INTO graded_measurements (id, diamond_id, source, data, created_by)
       VALUES ($1, $2, $3, $4::jsonb, $5)
       ${opts.ifAbsent ? 'ON CONFLICT (id) DO NOTHING' : ''}
       RETURNING *`,
      [gm.id, gm.diamond_id, gm.source, JSON.stringify(gm.data), gm.created_by],
    );
    return rows[0] ?? null;
  }

  // raw SQL: the updated row back in one round trip (RETURNING *; the ORM would update, then select).
  /** Sets is_active of one record; returns the updated row. */
  async setActive(sql: Sql, diamondId: string, id: string, active: boolean): Promise<GradedMeasurementRow> {
    const rows = await sql.rows<GradedMeasurementRow>(
      `UPDATE graded_measurements SET is_active = $3, updated_at = clock_timestamp() WHERE diamond_id = $1 AND id = $2 RETURNING *`,
      [diamondId, id, active],
    );
    if (rows.length !== 1) throw new Error(`graded measurement ${id} vanished during an update`);
    return rows[0];
  }

  /** Deactivates whatever is active for the diamond; returns how many changed. */
  async deactivateAll(tx: Tx, diamondId: string): Promise<number> {
    const r = await this.on(tx).update({ diamond_id: diamondId, is_active: true }, { is_active: false, updated_at: () => 'clock_timestamp()' });
    return r.affected ?? 0;
  }
}
