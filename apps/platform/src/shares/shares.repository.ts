import { Injectable } from '@nestjs/common';
import type { Sql } from '@dtp/database';
import type { ShareRow } from './diamond-share.entity';

/** `diamond_shares` (DiamondShareEntity): the passport links of diamonds. Raw SQL on the caller's Sql (transaction or pool). */
@Injectable()
export class SharesRepository {
  async insert(sql: Sql, row: Pick<ShareRow, 'share_id' | 'diamond_id' | 'created_by' | 'created_at' | 'expires_at'>): Promise<void> {
    await sql.exec(`INSERT INTO diamond_shares (share_id, diamond_id, created_by, created_at, expires_at, revision) VALUES ($1, $2, $3, $4, $5, 1)`, [
      row.share_id,
      row.diamond_id,
      row.created_by,
      row.created_at,
      row.expires_at,
    ]);
  }

  /** The share of `diamondId` named `shareId`, locked for the revocation; null when there is none. */
  async findForUpdate(sql: Sql, diamondId: string, shareId: string): Promise<ShareRow | null> {
    const rows = await sql.rows<ShareRow>(`SELECT * FROM diamond_shares WHERE share_id = $1 AND diamond_id = $2 FOR UPDATE`, [shareId, diamondId]);
    return rows[0] ?? null;
  }

  /** Marks the share revoked (revision 2). */
  async revoke(sql: Sql, shareId: string, by: string, at: Date): Promise<void> {
    await sql.exec(`UPDATE diamond_shares SET revoked_at = $2, revoked_by = $3, revision = 2 WHERE share_id = $1 AND revoked_at IS NULL`, [shareId, at, by]);
  }
}
