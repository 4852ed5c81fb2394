import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Not, Raw, Repository } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { EventTypes, isUuid, makeEnvelope, Topics, ValidationParameters } from '@dtp/domain';
import { writeOutbox } from '@dtp/events';
import { ValidationRequestEntity } from './validation-request.entity';

/** A worker's answer to a job. */
export interface ValidationAnswer {
  status: 'Verified' | 'Unverifiable';
  description: string | null;
  error: string | null;
  parameters: ValidationParameters | null;
}

/** validation_requests: the worker's durable job table and the results labs poll. The only code that queries the table. */
@Injectable()
export class ValidationRepository {
  constructor(
    @InjectRepository(ValidationRequestEntity) private readonly repo: Repository<ValidationRequestEntity>,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Queues a job; the insert trigger NOTIFYs the workers when the transaction commits. In the request's transaction
   * when it has one (Idempotency-Key): the job and the stored answer commit together.
   */
  async insert(job: Pick<ValidationRequestEntity, 'request_id' | 'diamond_id' | 'lab_participant_id' | 'request' | 'scan_report_hash'>): Promise<void> {
    await this.uow.manager.getRepository(ValidationRequestEntity).insert(job);
  }

  /** One request of one lab for one diamond (null for another lab's, another diamond's or a malformed id). */
  async findOwn(diamondId: string, requestId: string, labParticipantId: string): Promise<ValidationRequestEntity | null> {
    if (!isUuid(requestId)) return null;
    // Raw SQL: the read every lab polls until its answer (gis bench: ~10 per request); findOneBy doubles its CPU cost.
    const rows: ValidationRequestEntity[] = await this.repo.query(
      `SELECT * FROM validation_requests WHERE request_id = $1 AND diamond_id = $2 AND lab_participant_id = $3`,
      [requestId, diamondId, labParticipantId],
    );
    return rows[0] ?? null;
  }

  /** This lab's answered (or errored) requests for a diamond, newest first. */
  async answered(diamondId: string, labParticipantId: string): Promise<ValidationRequestEntity[]> {
    return this.repo.find({
      where: { diamond_id: diamondId, lab_participant_id: labParticipantId, status: Not('Pending') },
      order: { requested_at: 'DESC', request_id: 'ASC' },
    });
  }

  /** The newest Verified result of this lab for this diamond answered within the last `expirySeconds` (database clock). */
  async latestUnexpiredVerified(diamondId: string, labParticipantId: string, expirySeconds: number): Promise<ValidationRequestEntity | null> {
    return this.repo.findOne({
      where: {
        diamond_id: diamondId,
        lab_participant_id: labParticipantId,
        status: 'Verified',
        answered_at: Raw((at) => `${at} > clock_timestamp() - make_interval(secs => :expirySeconds)`, { expirySeconds }),
      },
      order: { answered_at: 'DESC' },
    });
  }

  /**
   * Claims up to `limit` Pending jobs that nobody holds or whose holder's lease (`claimed_at + lease`) has run
   * out, oldest first. `FOR UPDATE SKIP LOCKED` lets several workers (replicas) claim at the same time without
   * taking the same job or waiting for each other.
   */
  async claim(workerId: string, leaseSeconds: number, limit: number): Promise<ValidationRequestEntity[]> {
    // Raw SQL: one UPDATE ... FROM a SKIP LOCKED sub-select (claim and lease in one statement), which the query builder cannot express.
    const [rows]: [ValidationRequestEntity[], number] = await this.repo.query(
      `UPDATE validation_requests v
          SET claimed_by = $1, claimed_at = clock_timestamp(), attempts = v.attempts + 1
         FROM (SELECT request_id FROM validation_requests
                WHERE status = 'Pending'
                  AND (claimed_at IS NULL OR claimed_at < clock_timestamp() - make_interval(secs => $2))
                ORDER BY requested_at
                LIMIT $3
                FOR UPDATE SKIP LOCKED) c
        WHERE v.request_id = c.request_id
        RETURNING v.*`,
      [workerId, leaseSeconds, limit],
    );
    return rows;
  }

  /** Stores the answer if this worker still holds the job; false when another worker answered it first. */
  /**
   * Stores the answer while `workerId` still holds the job, and in the same transaction writes `validation.answered`
   * (gis.validations.v1) to the outbox, so platform tells the diamond's holder. False when another worker holds it.
   */
  async answer(
    requestId: string,
    workerId: string,
    result: ValidationAnswer,
    job?: Pick<ValidationRequestEntity, 'diamond_id' | 'lab_participant_id'>,
  ): Promise<boolean> {
    return this.uow.run(async (tx) => {
      const { affected } = await tx.manager.update(
        ValidationRequestEntity,
        { request_id: requestId, claimed_by: workerId, status: 'Pending' },
        {
          status: result.status,
          verification_description: result.description,
          verification_error: result.error,
          parameters: result.parameters,
          answered_at: () => 'clock_timestamp()',
          answered_by: workerId,
          claimed_by: null,
          claimed_at: null,
        },
      );
      if (affected !== 1) return false;
      if (job) {
        const envelope = makeEnvelope({
          event_type: EventTypes.VALIDATION_ANSWERED,
          data: {
            request_id: requestId,
            diamond_id: job.diamond_id,
            verification_status: result.status,
            lab_participant_id: job.lab_participant_id,
            answered_at: new Date().toISOString(),
          },
          revision: 1,
        });
        await writeOutbox(tx.manager, [{ topic: Topics.GIS_VALIDATIONS, key: requestId, eventType: envelope.event_type, revision: 1, payload: envelope }]);
      }
      return true;
    });
  }
}
