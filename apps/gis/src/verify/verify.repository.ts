import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { DomainError, VerifyResponse } from '@dtp/domain';
import { DOMAIN_ERROR_STATUS } from '@dtp/service-kit';
import { VerifyAttemptEntity } from './verify-attempt.entity';

export interface VerifyAttemptInput extends Pick<VerifyAttemptEntity, 'diamond_id' | 'lab_participant_id' | 'lab_client_id' | 'request' | 'outcome'> {
  /** What the lab was answered: verify's 200 body, or the refusal. */
  answer: VerifyResponse | DomainError;
}

/** verify_attempts: every verify call, its caller, request and answer. The only code that queries the table. */
@Injectable()
export class VerifyRepository {
  constructor(
    @InjectRepository(VerifyAttemptEntity) private readonly repo: Repository<VerifyAttemptEntity>,
    private readonly uow: UnitOfWork,
  ) {}

  async record({ answer, ...attempt }: VerifyAttemptInput): Promise<string> {
    const id = randomUUID();
    const refused = answer instanceof DomainError;
    // In the request's transaction when it has one (Idempotency-Key): the attempt and the stored answer commit together.
    await this.uow.manager.getRepository(VerifyAttemptEntity).insert({
      id,
      ...attempt,
      // The status the lab received: the kit's status of the refusal's kind, or verify's 200.
      http_status: refused ? DOMAIN_ERROR_STATUS[answer.kind] : HttpStatus.OK,
      response: refused ? answer.body : answer,
    });
    return id;
  }

  /** True when this lab has verified this diamond successfully at least once. */
  async hasSuccess(diamondId: string, labParticipantId: string): Promise<boolean> {
    return this.repo.existsBy({ diamond_id: diamondId, lab_participant_id: labParticipantId, outcome: 'success' });
  }
}
