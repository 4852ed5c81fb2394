import { Injectable } from '@nestjs/common';
import type { GradedMeasurementSource, GradingData } from '@dtp/domain';
import { Sql } from '@dtp/database';
import { GradedMeasurementRow } from './graded-measurement.row';

export interface NewGradedMeasurement {
  id: string;
  diamond_id: string;
  source: GradedMeasurementSource;
  data: GradingData;
  created_by: string | null;
}

/** SQL over `graded_measurements`. At most one active record per diamond (partial unique index). */
@Injectable()
export class GradedMeasurementsRepository {
  async list(sql: Sql, diamondId: string): Promise<GradedMeasurementRow[]> {
    return sql.rows<GradedMeasurementRow>(`SELECT * FROM graded_measurements WHERE diamond_id = $1 AND held_back_at IS NULL ORDER BY created_at, id`, [diamondId]);
  }

  async active(sql: Sql, diamondId: string): Promise<GradedMeasurementRow | null> {
    const rows = await sql.rows<GradedMeasurementRow>(`SELECT * FROM graded_measurements WHERE diamond_id = $1 AND is_active`, [diamondId]);
    return rows[0] ?? null;
  }

  /** The active record of each of the given diamonds (those that have one). */
  async activeMany(sql: Sql, diamondIds: string[]): Promise<GradedMeasurementRow[]> {
    return sql.rows<GradedMeasurementRow>(`SELECT * FROM graded_measurements WHERE diamond_id = ANY($1::text[]) AND is_active`, [diamondIds]);
  }

  /**
   * On a transfer only the active record travels downstream: the others are held back (kept, but no longer
   * listed or selectable for anyone). Returns how many were held back.
   */
  async holdBackInactive(sql: Sql, diamondIds: string[]): Promise<number> {
    return sql.exec(
      `UPDATE graded_measurements SET held_back_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE diamond_id = ANY($1::text[]) AND NOT is_active AND held_back_at IS NULL`,
      [diamondIds],
    );
  }

  async find(sql: Sql, diamondId: string, id: string): Promise<GradedMeasurementRow | null> {
    const rows = await sql.rows<GradedMeasurementRow>(`SELECT * FROM graded_measurements WHERE diamond_id = $1 AND id = $2 AND held_back_at IS NULL`, [diamondId, id]);
    return rows[0] ?? null;
  }

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
  async deactivateAll(sql: Sql, diamondId: string): Promise<number> {
    return sql.exec(`UPDATE graded_measurements SET is_active = false, updated_at = clock_timestamp() WHERE diamond_id = $1 AND is_active`, [diamondId]);
  }
}
