import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ValidateAccepted, ValidateJsonRequestDto, ValidationHistoryEntry, ValidationPoll, resolveShapeGroup } from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import {
  DiamondIneligibleError,
  DiamondNotFoundError,
  InvalidBodyMemberError,
  PrerequisiteMissingError,
  ValidationRequestNotFoundError,
} from '../common/errors';
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

  async accept(diamondId: string, dto: ValidateJsonRequestDto, caller: Caller): Promise<ValidateAccepted> {
    if (resolveShapeGroup(dto.shape_group) === undefined) {
      throw new InvalidBodyMemberError('shape_group', 'shape_group must be a shape or a shape group name', 'enum');
    }
    const { assessment } = await this.eligibility.requireEligible(diamondId);
    if (assessment.gisStatus === 'shape_not_supported') {
      throw new DiamondIneligibleError(
        'shape_not_supported',
        `the diamond's shape "${assessment.shape}" has no supported shape group (group ${assessment.shapeGroup}); validation is not available`,
      );
    }
    if (!(await this.verifications.hasSuccess(diamondId, caller.participantId))) {
      throw new PrerequisiteMissingError('no_successful_verify', 'no successful verify request by this lab exists for this diamond; call verify first');
    }
    const requestId = randomUUID();
    await this.requests.insert({
      request_id: requestId,
      diamond_id: diamondId,
      lab_participant_id: caller.participantId,
      request: { ...dto },
      scan_report_hash: assessment.scanReportHash,
    });
    const base = this.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
    return {
      diamond_id: diamondId,
      request_id: requestId,
      status_url: `${base}/v2/diamonds/${encodeURIComponent(diamondId)}/validate/${requestId}`,
      verification_status: 'Pending',
    };
  }

  async poll(diamondId: string, requestId: string, caller: Caller): Promise<ValidationPoll> {
    const found = await this.requests.findOwn(diamondId, requestId, caller.participantId);
    if (!found) throw new ValidationRequestNotFoundError();
    return toValidationPoll(found);
  }

  async history(diamondId: string, caller: Caller): Promise<ValidationHistoryEntry[]> {
    const rows = await this.requests.answered(diamondId, caller.participantId);
    if (rows.length === 0 && !(await this.diamonds.find(diamondId))) throw new DiamondNotFoundError();
    const now = Date.now();
    return rows.map((r) => toHistoryEntry(r, this.config.VALIDATION_EXPIRY_SECONDS, now));
  }
}
