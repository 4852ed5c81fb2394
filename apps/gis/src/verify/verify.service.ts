import { Injectable } from '@nestjs/common';
import {
  VERIFY_CARAT_TOLERANCE,
  VERIFY_CARAT_TOLERANCE_REPORTED,
  VerifyRequestDto,
  VerifyResponse,
  resolveShapeGroup,
  toDecimalText,
  withinTolerance,
} from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { refusal } from '../common/assessment-answers';
import { Answer } from '../common/http-errors';
import { EligibilityService } from '../diamonds/eligibility.service';
import { VerifyAttemptEntity } from './verify-attempt.entity';
import { VerifyRepository } from './verify.repository';

const OUTCOME_BY_STATUS: Record<number, VerifyAttemptEntity['outcome']> = { 404: 'not_found', 410: 'deleted', 409: 'ineligible' };

/**
 * Verify (spec "Grading integration"): compares the lab's carat weight with the declared polished carats
 * (|given - known| <= 0.02 in decimal arithmetic, reported as "0.020") and its shape group with the declared
 * shape's group. Group `Other` is accepted. Every attempt that reaches the rules is recorded.
 */
@Injectable()
export class VerifyService {
  constructor(
    private readonly eligibility: EligibilityService,
    private readonly attempts: VerifyRepository,
  ) {}

  async verify(diamondId: string, dto: VerifyRequestDto, caller: Caller): Promise<Answer> {
    const found = await this.eligibility.assess(diamondId);
    const assessment = found?.assessment ?? null;
    const request = { carat_weight: dto.carat_weight, shape_group: dto.shape_group };
    const refused = refusal(assessment);
    if (refused || assessment?.kind !== 'eligible') {
      const answer = refused ?? { status: 500, body: { detail: 'unexpected eligibility state' } };
      const outcome = OUTCOME_BY_STATUS[answer.status];
      if (outcome) await this.record(diamondId, caller, request, outcome, answer);
      return answer;
    }
    const given = toDecimalText(dto.carat_weight);
    const caratMatched = withinTolerance(given, assessment.carats, VERIFY_CARAT_TOLERANCE);
    const givenGroup = resolveShapeGroup(dto.shape_group) ?? dto.shape_group;
    const shapeMatched = givenGroup === assessment.shapeGroup;
    const body: VerifyResponse =
      caratMatched && shapeMatched
        ? { status: 'success', is_locked: found?.diamond.unlockStatus === 'locked' }
        : {
            status: 'failure',
            data: {
              carat_weight: { matched: caratMatched, known_value: assessment.carats, given_value: given, tolerance: VERIFY_CARAT_TOLERANCE_REPORTED },
              shape_group: { matched: shapeMatched, known_value: assessment.shapeGroup, given_value: givenGroup },
            },
          };
    const answer: Answer = { status: 200, body };
    await this.record(diamondId, caller, request, body.status, answer);
    return answer;
  }

  private async record(
    diamondId: string,
    caller: Caller,
    request: Record<string, unknown>,
    outcome: VerifyAttemptEntity['outcome'],
    answer: Answer,
  ): Promise<void> {
    await this.attempts.record({
      diamondId,
      labParticipantId: caller.participantId,
      labClientId: caller.clientId,
      request,
      outcome,
      httpStatus: answer.status,
      response: answer.body,
    });
  }
}
