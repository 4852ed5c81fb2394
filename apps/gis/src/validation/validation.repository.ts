import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ValidationParameters } from '@dtp/domain';
import { ValidationRequestEntity } from './validation-request.entity';

const COLUMNS: Record<keyof ValidationRequestEntity, string> = {
  requestId: 'request_id',
  diamondId: 'diamond_id',
  labParticipantId: 'lab_participant_id',
  request: 'request',
  scanReportHash: 'scan_report_hash',
  status: 'status',
  verificationDescription: 'verification_description',
  verificationError: 'verification_error',
  parameters: 'parameters',
  requestedAt: 'requested_at',
  answeredAt: 'answered_at',
  answeredBy: 'answered_by',
  claimedBy: 'claimed_by',
  claimedAt: 'claimed_at',
  attempts: 'attempts',
};
const selectList = (alias = '') =>
  Object.entries(COLUMNS)
    .map(([prop, col]) => `${alias}${col} AS "${prop}"`)
    .join(', ');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** validation_requests: the worker's durable job table and the results labs poll. */
@Injectable()
export class ValidationRepository {
  constructor(@Inject(DataSource) private readonly ds: DataSource) {}

  /** Queues a job; the insert trigger NOTIFYs the workers when the transaction commits. */
  async insert(job: Pick<ValidationRequestEntity, 'requestId' | 'diamondId' | 'labParticipantId' | 'request' | 'scanReportHash'>): Promise<ValidationRequestEntity> {
    const rows = (await this.ds.query(
      `INSERT INTO validation_requests (request_id, diamond_id, lab_participant_id, request, scan_report_hash)
       VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING ${selectList()}`,
      [job.requestId, job.diamondId, job.labParticipantId, JSON.stringify(job.request), job.scanReportHash],
    )) as ValidationRequestEntity[];
    return rows[0];
  }

  /** One request of one lab for one diamond (null for another lab's, another diamond's or a malformed id). */
  async findOwn(diamondId: string, requestId: string, labParticipantId: string): Promise<ValidationRequestEntity | null> {
    if (!UUID.test(requestId)) return null;
    const rows = (await this.ds.query(
      `SELECT ${selectList()} FROM validation_requests WHERE request_id = $1 AND diamond_id = $2 AND lab_participant_id = $3`,
      [requestId, diamondId, labParticipantId],
    )) as ValidationRequestEntity[];
    return rows[0] ?? null;
  }

  /** This lab's answered (or errored) requests for a diamond, newest first. */
  async answered(diamondId: string, labParticipantId: string): Promise<ValidationRequestEntity[]> {
    return (await this.ds.query(
      `SELECT ${selectList()} FROM validation_requests
       WHERE diamond_id = $1 AND lab_participant_id = $2 AND status <> 'Pending'
       ORDER BY requested_at DESC, request_id`,
      [diamondId, labParticipantId],
    )) as ValidationRequestEntity[];
  }

  /** The newest Verified result of this lab for this diamond answered within the last `expirySeconds`. */
  async latestUnexpiredVerified(diamondId: string, labParticipantId: string, expirySeconds: number): Promise<ValidationRequestEntity | null> {
    const rows = (await this.ds.query(
      `SELECT ${selectList()} FROM validation_requests
       WHERE diamond_id = $1 AND lab_participant_id = $2 AND status = 'Verified'
         AND answered_at > clock_timestamp() - make_interval(secs => $3)
       ORDER BY answered_at DESC LIMIT 1`,
      [diamondId, labParticipantId, expirySeconds],
    )) as ValidationRequestEntity[];
    return rows[0] ?? null;
  }

  /**
   * Claims up to `limit` Pending jobs that nobody holds or whose holder's lease (`claimed_at + lease`) has run
   * out, oldest first. `FOR UPDATE SKIP LOCKED` lets several workers (replicas) claim at the same time without
   * taking the same job or waiting for each other.
   */
  async claim(workerId: string, leaseSeconds: number, limit: number): Promise<ValidationRequestEntity[]> {
    const [rows] = (await this.ds.query(
      `UPDATE validation_requests v
          SET claimed_by = $1, claimed_at = clock_timestamp(), attempts = v.attempts + 1
         FROM (SELECT request_id FROM validation_requests
                WHERE status = 'Pending'
                  AND (claimed_at IS NULL OR claimed_at < clock_timestamp() - make_interval(secs => $2))
                ORDER BY requested_at
                LIMIT $3
                FOR UPDATE SKIP LOCKED) c
        WHERE v.request_id = c.request_id
        RETURNING ${selectList('v.')}`,
      [workerId, leaseSeconds, limit],
    )) as [ValidationRequestEntity[], number];
    return rows;
  }

  /** Stores the answer if this worker still holds the job; false when another worker answered it first. */
  async answer(
    requestId: string,
    workerId: string,
    result: { status: 'Verified' | 'Unverifiable'; description: string | null; error: string | null; parameters: ValidationParameters | null },
  ): Promise<boolean> {
    const [, count] = (await this.ds.query(
      `UPDATE validation_requests
          SET status = $3, verification_description = $4, verification_error = $5, parameters = $6::jsonb,
              answered_at = clock_timestamp(), answered_by = $2, claimed_by = NULL, claimed_at = NULL
        WHERE request_id = $1 AND claimed_by = $2 AND status = 'Pending'`,
      [requestId, workerId, result.status, result.description, result.error, result.parameters === null ? null : JSON.stringify(result.parameters)],
    )) as [unknown, number];
    return count === 1;
  }
}
