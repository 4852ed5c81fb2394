import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  EventTypes,
  GRADING_DECIMAL_FIELDS,
  GradingSubmission,
  GradingSubmissionDto,
  Topics,
  makeEnvelope,
  toDecimalText,
} from '@dtp/domain';
import type { Caller } from '@dtp/auth-guard';
import { writeOutbox } from '@dtp/events';
import { DIAMOND_NOT_FOUND } from '../common/assessment-answers';
import { Answer, notFound } from '../common/http-errors';
import { GIS_CONFIG } from '../common/tokens';
import { GisConfig } from '../config';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ValidationRepository } from '../validation/validation.repository';

export interface GradingAccepted {
  grading_id: string;
  diamond_id: string;
  status: 'accepted';
}

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
    @Inject(DataSource) private readonly ds: DataSource,
    private readonly diamonds: DiamondsRepository,
    private readonly validations: ValidationRepository,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
  ) {}

  async submit(diamondId: string, dto: GradingSubmissionDto, caller: Caller): Promise<Answer> {
    const diamond = await this.diamonds.find(diamondId);
    if (!diamond) return notFound(DIAMOND_NOT_FOUND);
    if (diamond.deleted) return { status: HttpStatus.GONE, body: { reason: 'diamond_has_been_deleted', detail: null } };
    const validation = await this.validations.latestUnexpiredVerified(diamondId, caller.participantId, this.config.VALIDATION_EXPIRY_SECONDS);
    if (!validation) {
      return {
        status: HttpStatus.PRECONDITION_FAILED,
        body: {
          reason: 'no_verified_validation',
          detail: 'no unexpired Verified validation of this diamond by this lab exists; validate it first',
        },
      };
    }
    const gradingId = randomUUID();
    const data = toGradingSubmission(dto);
    const submittedAt = new Date();
    const accepted = await this.ds.transaction(async (m) => {
      const row = await this.diamonds.lock(m, diamondId);
      if (!row || row.deleted) return false;
      const revision = await this.diamonds.nextGradingRevision(m, diamondId);
      await m.query(
        `INSERT INTO gradings (grading_id, diamond_id, lab_participant_id, validation_request_id, revision, data, submitted_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
        [gradingId, diamondId, caller.participantId, validation.requestId, revision, JSON.stringify(data), submittedAt],
      );
      const envelope = makeEnvelope({
        event_type: EventTypes.GRADING_SUBMITTED,
        data: {
          diamond_id: diamondId,
          grading_id: gradingId,
          holder: row.holderParticipantId,
          submitted_by: caller.participantId,
          submitted_at: submittedAt.toISOString(),
          data,
        },
        revision,
        occurred_at: submittedAt,
      });
      await writeOutbox(m, [{ topic: Topics.GIS_GRADINGS, key: diamondId, eventType: envelope.event_type, revision, payload: envelope }]);
      return true;
    });
    if (!accepted) return { status: HttpStatus.GONE, body: { reason: 'diamond_has_been_deleted', detail: null } };
    return { status: HttpStatus.CREATED, body: { grading_id: gradingId, diamond_id: diamondId, status: 'accepted' } };
  }
}
