import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  ValidateAccepted,
  ValidateJsonRequestDto,
  ValidationHistoryEntry,
  ValidationPoll,
  resolveShapeGroup,
} from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { RequestValidationException } from '@dtp/service-kit';
import { DIAMOND_NOT_FOUND, refusal } from '../common/assessment-answers';
import { Answer, notFound } from '../common/http-errors';
import { REQUEST_NOT_FOUND } from '../common/path-ids';
import { GIS_CONFIG } from '../common/tokens';
import { GisConfig } from '../config';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { EligibilityService } from '../diamonds/eligibility.service';
import { VerifyRepository } from '../verify/verify.repository';
import { toHistoryEntry, toValidationPoll } from './validation.mapper';
import { ValidationRepository } from './validation.repository';

/**
 * Validate (spec "Grading integration"): accepts a lab's measurements for an eligible diamond that this lab
 * has verified successfully, queues a job (202 Pending) that the worker answers, and serves poll and history.
 */
@Injectable()
export class ValidationService {
  constructor(
    private readonly eligibility: EligibilityService,
    private readonly diamonds: DiamondsRepository,
    private readonly verifications: VerifyRepository,
    private readonly requests: ValidationRepository,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
  ) {}

  async accept(diamondId: string, dto: ValidateJsonRequestDto, caller: Caller): Promise<Answer> {
    if (resolveShapeGroup(dto.shape_group) === undefined) {
      throw new RequestValidationException([
        { loc: ['body', 'shape_group'], msg: 'shape_group must be a shape or a shape group name', type: 'enum' },
      ]);
    }
    const found = await this.eligibility.assess(diamondId);
    const assessment = found?.assessment ?? null;
    const refused = refusal(assessment);
    if (refused) return refused;
    if (assessment?.kind !== 'eligible') throw new Error('unexpected eligibility state');
    if (assessment.gisStatus === 'shape_not_supported') {
      return {
        status: HttpStatus.CONFLICT,
        body: {
          reason: 'shape_not_supported',
          detail: `the diamond's shape "${assessment.shape}" has no supported shape group (group ${assessment.shapeGroup}); validation is not available`,
        },
      };
    }
    if (!(await this.verifications.hasSuccess(diamondId, caller.participantId))) {
      return {
        status: HttpStatus.PRECONDITION_FAILED,
        body: {
          reason: 'no_successful_verify',
          detail: 'no successful verify request by this lab exists for this diamond; call verify first',
        },
      };
    }
    const requestId = randomUUID();
    await this.requests.insert({
      requestId,
      diamondId,
      labParticipantId: caller.participantId,
      request: { ...dto },
      scanReportHash: assessment.scanReportHash,
    });
    const base = this.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
    return {
      status: HttpStatus.ACCEPTED,
      body: {
        diamond_id: diamondId,
        request_id: requestId,
        status_url: `${base}/v2/diamonds/${encodeURIComponent(diamondId)}/validate/${requestId}`,
        verification_status: 'Pending',
      } satisfies ValidateAccepted,
    };
  }

  async poll(diamondId: string, requestId: string, caller: Caller): Promise<Answer> {
    const found = await this.requests.findOwn(diamondId, requestId, caller.participantId);
    if (!found) return notFound(REQUEST_NOT_FOUND);
    return { status: HttpStatus.OK, body: toValidationPoll(found) satisfies ValidationPoll };
  }

  async history(diamondId: string, caller: Caller): Promise<Answer> {
    const rows = await this.requests.answered(diamondId, caller.participantId);
    if (rows.length === 0 && !(await this.diamonds.find(diamondId))) return notFound(DIAMOND_NOT_FOUND);
    const now = Date.now();
    return { status: HttpStatus.OK, body: rows.map((r): ValidationHistoryEntry => toHistoryEntry(r, this.config.VALIDATION_EXPIRY_SECONDS, now)) };
  }
}
