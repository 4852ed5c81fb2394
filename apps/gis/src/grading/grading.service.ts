import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { UnitOfWork } from '@dtp/database';
import { EventTypes, GRADING_DECIMAL_FIELDS, GradingAccepted, GradingSubmission, GradingSubmissionDto, Topics, makeEnvelope, toDecimalText } from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { writeOutbox } from '@dtp/events';
import { DiamondDeletedError, DiamondNotFoundError, PrerequisiteMissingError } from '../common/errors';
import { GIS_CONFIG } from '../common/tokens';
import { GisConfig } from '../config';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ValidationRepository } from '../validation/validation.repository';
import { GradingRepository } from './grading.repository';

/** The submission as published: members as given, decimal members as decimal text. */
export function toGradingSubmission(dto: GradingSubmissionDto): GradingSubmission {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dto)) {
    if (value === undefined) continue;
    out[key] = (GRADING_DECIMAL_FIELDS as readonly string[]).includes(key) && value !== null ? toDecimalText(value as number | string) : value;
  }
  out.validation_level ??= 'validation';
  return out as unknown as GradingSubmission;
}

/**
 * Grading submission (DESIGN.md "GIS"): a lab with an unexpired Verified validation of the diamond submits its
 * grading; GIS stores it and publishes `grading.submitted` on gis.gradings.v1 (outbox, same transaction) with a
 * fresh `grading_id` that platform uses as the id of the `source: gis` graded measurement.
 */
@Injectable()
export class GradingService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly validations: ValidationRepository,
    private readonly gradings: GradingRepository,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
  ) {}

  async submit(diamondId: string, dto: GradingSubmissionDto, caller: Caller): Promise<GradingAccepted> {
    const diamond = await this.diamonds.find(diamondId);
    if (!diamond) throw new DiamondNotFoundError();
    if (diamond.deleted) throw new DiamondDeletedError();
    const validation = await this.validations.latestUnexpiredVerified(diamondId, caller.participantId, this.config.VALIDATION_EXPIRY_SECONDS);
    if (!validation) {
      throw new PrerequisiteMissingError('no_verified_validation', 'no unexpired Verified validation of this diamond by this lab exists; validate it first');
    }
    const gradingId = randomUUID();
    const data = toGradingSubmission(dto);
    const submittedAt = new Date();
    await this.uow.run(async ({ manager: m }) => {
      const row = await this.diamonds.lock(m, diamondId);
      // Deleted since the check above: nothing is written (the transaction ends here).
      if (!row || row.deleted) throw new DiamondDeletedError();
      const revision = await this.diamonds.nextGradingRevision(m, diamondId);
      await this.gradings.insert(m, {
        grading_id: gradingId,
        diamond_id: diamondId,
        lab_participant_id: caller.participantId,
        validation_request_id: validation.request_id,
        revision: String(revision),
        data,
        submitted_at: submittedAt,
      });
      const envelope = makeEnvelope({
        event_type: EventTypes.GRADING_SUBMITTED,
        data: {
          diamond_id: diamondId,
          grading_id: gradingId,
          holder: row.holder_participant_id,
          submitted_by: caller.participantId,
          submitted_at: submittedAt.toISOString(),
          data,
        },
        revision,
        occurred_at: submittedAt,
      });
      await writeOutbox(m, [{ topic: Topics.GIS_GRADINGS, key: diamondId, eventType: envelope.event_type, revision, payload: envelope }]);
    });
    return { grading_id: gradingId, diamond_id: diamondId, status: 'accepted' };
  }
}
