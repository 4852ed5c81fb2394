import { Injectable } from '@nestjs/common';
import type { ParticipantOnboardedData } from '@dtp/domain';
import { Sql } from '@dtp/database';
import { ParticipantRow } from './participant.row';

@Injectable()
export class ParticipantsRepository {
  async find(sql: Sql, participantId: string): Promise<ParticipantRow | null> {
    const rows = await sql.rows<ParticipantRow>(`SELECT * FROM participants WHERE participant_id = $1`, [participantId]);
    return rows[0] ?? null;
  }

  /**
   * Stores the participant if `revision` is newer than what is held (idempotent: a redelivered or older event
   * changes nothing). Returns the stored row when it applied, null when it was stale.
   */
  async upsert(sql: Sql, data: ParticipantOnboardedData, revision: number): Promise<ParticipantRow | null> {
    const rows = await sql.rows<ParticipantRow>(
      `INSERT INTO participants (participant_id, name, role, provenance, base_url, revision)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)
       ON CONFLICT (participant_id) DO UPDATE
         SET name = EXCLUDED.name, role = EXCLUDED.role, provenance = EXCLUDED.provenance, base_url = EXCLUDED.base_url,
             revision = EXCLUDED.revision, updated_at = clock_timestamp()
         WHERE participants.revision < EXCLUDED.revision
       RETURNING *`,
      [data.participant_id, data.name, data.role, data.provenance ? JSON.stringify(data.provenance) : null, data.base_url ?? null, revision],
    );
    return rows[0] ?? null;
  }
}
