import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { ParticipantOnboardedData } from '@dtp/domain';
import { Sql, Tx } from '@dtp/database';
import { ParticipantEntity, ParticipantRow } from './participant.entity';

/** `participants`: what platform knows about each participant (from auth.participants.v1). */
@Injectable()
export class ParticipantsRepository {
  constructor(@InjectRepository(ParticipantEntity) private readonly participants: Repository<ParticipantEntity>) {}

  /** The participant, read in `tx` (null: outside a transaction, on the pool). */
  async find(tx: Tx | null, participantId: string): Promise<ParticipantRow | null> {
    const repo = tx ? tx.manager.getRepository(ParticipantEntity) : this.participants;
    return repo.findOneBy({ participant_id: participantId });
  }

  // raw SQL: a revision-guarded ON CONFLICT upsert returning the row, one round trip (the ORM's upsert has no guard).
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
