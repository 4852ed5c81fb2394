import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  EligibilityChangedData,
  EnvelopeOf,
  EventTypes,
  GradingReceivedEventData,
  GradingSubmittedData,
  ParticipantEventTypes,
  Topics,
  ValidationAnsweredEventData,
} from '@dtp/domain';
import { EventContext, ParkEventError } from '@dtp/events';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { GradedMeasurementsService } from '../graded-measurements/graded-measurements.service';
import { participantEvent, writeParticipantEvents } from '../webhooks/participant-events';

/**
 * What GIS tells platform (DESIGN.md "GIS"):
 * - gis.gradings.v1 `grading.submitted`: the lab's grading becomes an inactive, selectable `source: gis` graded
 *   measurement of the diamond (once per grading_id);
 * - gis.eligibility.v1 `eligibility.changed`: the diamond's `gis_status`, a change of the record (new version,
 *   outbox), so search shows it.
 * Both are idempotent by revision (the EventsServer's runConsumer) and applied in the consumer's transaction.
 */
@Controller()
export class GisEventsController {
  constructor(
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
    private readonly graded: GradedMeasurementsService,
  ) {}

  @EventPattern(Topics.GIS_GRADINGS)
  async onGrading(@Payload() envelope: EnvelopeOf<typeof Topics.GIS_GRADINGS>, @Ctx() ctx: EventContext): Promise<void> {
    switch (envelope.event_type) {
      case EventTypes.GRADING_SUBMITTED: {
        const outcome = await this.graded.recordGisGrading(ctx.tx, envelope.data);
        if (outcome === 'diamond_not_found') throw new ParkEventError(`diamond ${envelope.data.diamond_id} not found (deleted?)`);
        if (outcome === 'recorded') await this.gradingReceived(envelope.data, ctx);
        return;
      }
    }
  }

  @EventPattern(Topics.GIS_ELIGIBILITY)
  async onEligibility(@Payload() envelope: EnvelopeOf<typeof Topics.GIS_ELIGIBILITY>, @Ctx() ctx: EventContext): Promise<void> {
    switch (envelope.event_type) {
      case EventTypes.ELIGIBILITY_CHANGED:
        return this.applyEligibility(envelope.data, ctx);
    }
  }

  /** gis.validations.v1 `validation.answered`: the holder's dtp.validation.answered (the request is answered once). */
  @EventPattern(Topics.GIS_VALIDATIONS)
  async onValidation(@Payload() envelope: EnvelopeOf<typeof Topics.GIS_VALIDATIONS>, @Ctx() ctx: EventContext): Promise<void> {
    switch (envelope.event_type) {
      case EventTypes.VALIDATION_ANSWERED: {
        const data = envelope.data;
        const row = await this.diamonds.find(ctx.tx, data.diamond_id);
        if (!row) return; // deleted meanwhile: nobody holds it
        const event: ValidationAnsweredEventData = {
          diamond_id: data.diamond_id,
          request_id: data.request_id,
          verification_status: data.verification_status,
          answered_at: data.answered_at,
        };
        await writeParticipantEvents(ctx.tx, [participantEvent(row.holder_id, ParticipantEventTypes.VALIDATION_ANSWERED, data.diamond_id, event, new Date())]);
        return;
      }
    }
  }

  /** The holder's dtp.grading.received, in the consumer's transaction (once: only when the grading was new). */
  private async gradingReceived(data: GradingSubmittedData, ctx: EventContext): Promise<void> {
    const row = await this.diamonds.find(ctx.tx, data.diamond_id);
    if (!row) return;
    const event: GradingReceivedEventData = {
      diamond_id: data.diamond_id,
      grading_id: data.grading_id,
      submitted_by: data.submitted_by ?? null,
      submitted_at: data.submitted_at ?? null,
      grading: data.data as unknown as Record<string, unknown>,
    };
    await writeParticipantEvents(ctx.tx, [participantEvent(row.holder_id, ParticipantEventTypes.GRADING_RECEIVED, data.diamond_id, event, new Date())]);
  }

  private async applyEligibility(data: EligibilityChangedData, ctx: EventContext): Promise<void> {
    const row = await this.diamonds.find(ctx.tx, data.diamond_id, { lock: true });
    if (!row) return; // deleted meanwhile: nothing to show the status on
    if (row.gis_status === data.gis_status) return;
    await this.changes.commit(ctx.tx, row, { gis_status: data.gis_status }, { action: 'record_updated', actor: null });
  }
}
