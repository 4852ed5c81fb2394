import { Injectable } from '@nestjs/common';
import {
  DomainError,
  VERIFY_CARAT_TOLERANCE,
  VERIFY_CARAT_TOLERANCE_REPORTED,
  VerifyRequestDto,
  VerifyResponse,
  resolveShapeGroup,
  toDecimalText,
  withinTolerance,
} from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { DiamondDeletedError, DiamondIneligibleError, DiamondNotFoundError } from '../common/errors';
import { EligibilityService, EligibleDiamond } from '../diamonds/eligibility.service';
import { VerifyAttemptEntity } from './verify-attempt.entity';
import { VerifyRepository } from './verify.repository';

/** The refusals a verify attempt is recorded with (a scan report not readable yet decides nothing: not recorded). */
function recordedRefusal(err: unknown): { outcome: VerifyAttemptEntity['outcome']; answer: DomainError } | undefined {
  if (err instanceof DiamondNotFoundError) return { outcome: 'not_found', answer: err };
  if (err instanceof DiamondDeletedError) return { outcome: 'deleted', answer: err };
  if (err instanceof DiamondIneligibleError) return { outcome: 'ineligible', answer: err };
  return undefined;
}

/**
 * Verify (spec "Grading integration"): compares the lab's carat weight with the declared polished carats
 * (|given - known| <= 0.02 in decimal arithmetic, reported as "0.020") and its shape group with the declared
 * shape's group. Group `Other` is accepted. Every attempt that reaches the rules is recorded, with its answer.
 */
@Injectable()
export class VerifyService {
  constructor(
    private readonly eligibility: EligibilityService,
    private readonly attempts: VerifyRepository,
  ) {}

  async verify(diamondId: string, dto: VerifyRequestDto, caller: Caller): Promise<VerifyResponse> {
    const request = { carat_weight: dto.carat_weight, shape_group: dto.shape_group };
    const attempt = { diamond_id: diamondId, lab_participant_id: caller.participantId, lab_client_id: caller.clientId, request };
    let eligible: EligibleDiamond;
    try {
      eligible = await this.eligibility.requireEligible(diamondId);
    } catch (err) {
      const refusal = recordedRefusal(err);
      if (refusal) await this.attempts.record({ ...attempt, ...refusal });
      throw err;
    }
    const { diamond, assessment } = eligible;
    const given = toDecimalText(dto.carat_weight);
    const caratMatched = withinTolerance(given, assessment.carats, VERIFY_CARAT_TOLERANCE);
    const givenGroup = resolveShapeGroup(dto.shape_group) ?? dto.shape_group;
    const shapeMatched = givenGroup === assessment.shapeGroup;
    const answer: VerifyResponse =
      caratMatched && shapeMatched
        ? { status: 'success', is_locked: diamond.unlock_status === 'locked' }
        : {
            status: 'failure',
            data: {
              carat_weight: { matched: caratMatched, known_value: assessment.carats, given_value: given, tolerance: VERIFY_CARAT_TOLERANCE_REPORTED },
              shape_group: { matched: shapeMatched, known_value: assessment.shapeGroup, given_value: givenGroup },
            },
          };
    await this.attempts.record({ ...attempt, outcome: answer.status, answer });
    return answer;
  }
}
