import { Injectable } from '@nestjs/common';
import { Sql } from '@dtp/database';

/** SQL over `participant_storage`: the bytes of files each participant has attached. */
@Injectable()
export class StorageQuotaRepository {
  /** Bytes `participantId` has attached so far (0 when none). */
  async used(sql: Sql, participantId: string): Promise<number> {
    const rows = await sql.rows<{ bytes: string }>(`SELECT bytes FROM participant_storage WHERE participant_id = $1`, [participantId]);
    return rows.length === 0 ? 0 : Number(rows[0].bytes);
  }

  /**
   * Adds `bytes` to the participant's total unless that would pass `quota`, in one statement (row-locked, so
   * concurrent uploads of one participant cannot both slip under it). False, and nothing added, past the quota.
   */
  async add(sql: Sql, participantId: string, bytes: number, quota: number): Promise<boolean> {
    const rows = await sql.rows<{ bytes: string }>(
      `INSERT INTO participant_storage AS s (participant_id, bytes) SELECT $1, $2::bigint WHERE $2::bigint <= $3::bigint
       ON CONFLICT (participant_id) DO UPDATE SET bytes = s.bytes + EXCLUDED.bytes, updated_at = now()
         WHERE s.bytes + EXCLUDED.bytes <= $3::bigint
       RETURNING bytes`,
      [participantId, bytes, quota],
    );
    return rows.length === 1;
  }
}
