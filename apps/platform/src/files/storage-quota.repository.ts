import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Sql, Tx } from '@dtp/database';
import { ParticipantStorageEntity } from './participant-storage.entity';

/** `participant_storage`: the bytes of files each participant has attached. */
@Injectable()
export class StorageQuotaRepository {
  constructor(@InjectRepository(ParticipantStorageEntity) private readonly storage: Repository<ParticipantStorageEntity>) {}

  /** Bytes `participantId` has attached so far (0 when none), read in `tx` (null: outside a transaction). */
  async used(tx: Tx | null, participantId: string): Promise<number> {
    const repo = tx ? tx.manager.getRepository(ParticipantStorageEntity) : this.storage;
    const row = await repo.findOne({ select: { bytes: true }, where: { participant_id: participantId } });
    return row === null ? 0 : Number(row.bytes);
  }

  // raw SQL: a quota-guarded ON CONFLICT increment in one statement (the ORM would read, then write: a race).
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
