import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { EligibilityChangedData, EventTypes, GradingSubmittedData, KnownEventEnvelope, Topics } from '@dtp/domain';
import { EventContext, ParkEventError } from '@dtp/events';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { GradedMeasurementsService } from '../graded-measurements/graded-measurements.service';

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
  async onGrading(@Payload() envelope: KnownEventEnvelope, @Ctx() ctx: EventContext): Promise<void> {
    if (envelope.event_type !== EventTypes.GRADING_SUBMITTED) return;
    const data = envelope.data as GradingSubmittedData;
    const outcome = await this.graded.recordGisGrading(ctx.tx, data);
    if (outcome === 'diamond_not_found') throw new ParkEventError(`diamond ${data.diamond_id} not found (deleted?)`);
  }

  @EventPattern(Topics.GIS_ELIGIBILITY)
  async onEligibility(@Payload() envelope: KnownEventEnvelope, @Ctx() ctx: EventContext): Promise<void> {
    if (envelope.event_type !== EventTypes.ELIGIBILITY_CHANGED) return;
    const data = envelope.data as EligibilityChangedData;
    const row = await this.diamonds.find(ctx.tx, data.diamond_id, { lock: true });
    if (!row) return; // deleted meanwhile: nothing to show the status on
    if (row.gis_status === data.gis_status) return;
    await this.changes.commit(ctx.tx, row, { gis_status: data.gis_status }, { action: 'record_updated', actor: null });
  }
}
