import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { ParticipantOnboardedData, ShareCreatedData, ShareRevokedData } from '@dtp/domain';

type Queryable = Pick<EntityManager, 'query'> | Pick<DataSource, 'query'>;

/** What the page may say about a participant: public facts only (never its id). */
export interface PublicParticipant {
  name: string;
  role: string;
  provenance_name: string | null;
  provenance_country: string | null;
}

/** The SQL of the passport's tables (migration 1764633600000-passport). */
@Injectable()
export class PassportRepository {
  constructor(@Inject(DataSource) private readonly db: Queryable) {}

  /** A link as created (revision 1); a row already there (a redelivery, or its revocation first) is kept. */
  async shareCreated(data: ShareCreatedData, revision: number, manager: Queryable = this.db): Promise<void> {
    await manager.query(
      `INSERT INTO search_shares (share_id, diamond_id, expires_at, revision) VALUES ($1, $2, $3, $4)
       ON CONFLICT (share_id) DO NOTHING`,
      [data.share_id, data.diamond_id, data.expires_at, revision],
    );
  }

  /** A link revoked for good (also when its creation never arrived: a revocation wins over a late creation). */
  async shareRevoked(data: ShareRevokedData, revision: number, manager: Queryable = this.db): Promise<void> {
    await manager.query(
      `INSERT INTO search_shares (share_id, diamond_id, expires_at, revoked_at, revision) VALUES ($1, $2, NULL, $3, $4)
       ON CONFLICT (share_id) DO UPDATE SET revoked_at = COALESCE(search_shares.revoked_at, EXCLUDED.revoked_at),
         revision = GREATEST(search_shares.revision, EXCLUDED.revision), updated_at = clock_timestamp()`,
      [data.share_id, data.diamond_id, data.revoked_at, revision],
    );
  }

  /** The diamond of a live link (not revoked, not expired at `now`), or null. */
  async liveShare(shareId: string, now: Date = new Date()): Promise<string | null> {
    const rows = (await this.db.query(
      `SELECT diamond_id FROM search_shares WHERE share_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
      [shareId, now],
    )) as { diamond_id: string }[];
    return rows[0]?.diamond_id ?? null;
  }

  /** Stores a participant's public facts when `revision` is newer than the held one. */
  async participant(data: ParticipantOnboardedData, revision: number, manager: Queryable = this.db): Promise<void> {
    await manager.query(
      `INSERT INTO search_participants (participant_id, name, role, provenance_name, provenance_country, revision)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (participant_id) DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role,
         provenance_name = EXCLUDED.provenance_name, provenance_country = EXCLUDED.provenance_country,
         revision = EXCLUDED.revision, updated_at = clock_timestamp()
       WHERE search_participants.revision < EXCLUDED.revision`,
      [data.participant_id, data.name, data.role, data.provenance?.name ?? null, data.provenance?.country_code ?? null, revision],
    );
  }

  /** The public facts of the given participants (unknown ones are absent). */
  async participants(ids: readonly string[]): Promise<Map<string, PublicParticipant>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.db.query(
      `SELECT participant_id, name, role, provenance_name, provenance_country FROM search_participants WHERE participant_id = ANY($1::text[])`,
      [[...new Set(ids)]],
    )) as (PublicParticipant & { participant_id: string })[];
    return new Map(rows.map(({ participant_id, ...p }) => [participant_id, p]));
  }
}
