import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { VerifyAttemptEntity } from './verify-attempt.entity';

export type VerifyAttemptInput = Pick<
  VerifyAttemptEntity,
  'diamondId' | 'labParticipantId' | 'labClientId' | 'request' | 'outcome' | 'httpStatus' | 'response'
>;

/** verify_attempts: every verify call, its caller, request and answer. */
@Injectable()
export class VerifyRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  async record(a: VerifyAttemptInput): Promise<string> {
    const id = randomUUID();
    await this.ds.query(
      `INSERT INTO verify_attempts (id, diamond_id, lab_participant_id, lab_client_id, request, outcome, http_status, response)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb)`,
      [id, a.diamondId, a.labParticipantId, a.labClientId, JSON.stringify(a.request), a.outcome, a.httpStatus, JSON.stringify(a.response)],
    );
    return id;
  }

  /** True when this lab has verified this diamond successfully at least once. */
  async hasSuccess(diamondId: string, labParticipantId: string): Promise<boolean> {
    const rows = (await this.ds.query(
      `SELECT 1 FROM verify_attempts WHERE diamond_id = $1 AND lab_participant_id = $2 AND outcome = 'success' LIMIT 1`,
      [diamondId, labParticipantId],
    )) as unknown[];
    return rows.length > 0;
  }
}
