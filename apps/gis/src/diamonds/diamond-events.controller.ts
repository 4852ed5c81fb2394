import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { DiamondV1, EnvelopeOf, EventTypes, Topics } from '@dtp/domain';
import type { EventContext } from '@dtp/events';
import { DiamondsRepository, declaredCarats, holderOf, newestScanReportHash } from './diamonds.repository';
import { EligibilityService } from './eligibility.service';

/**
 * Feeds GIS's view of diamonds from platform.diamonds.v1 (group `gis`), run by the EventsServer through @dtp/events' runConsumer:
 * payloads validated, an event applied only when its revision is newer than the one held (in the same
 * transaction as its effect), poison messages parked in `parked_events`, tombstones skipped.
 *
 * `diamond.upserted`: keeps lifecycle_state, unlock_status, declared polished carats/shape, the holder (when
 * the record names one) and the newest scan report's hash; the report is parsed on first sight (once per
 * hash) and the diamond's gis_status re-published when it changes. `diamond.deleted`: the row is kept,
 * marked deleted (410 from then on).
 */
@Controller()
export class DiamondEventsController {
  constructor(
    private readonly diamonds: DiamondsRepository,
    private readonly eligibility: EligibilityService,
  ) {}

  @EventPattern(Topics.PLATFORM_DIAMONDS)
  async onDiamondEvent(@Payload() envelope: EnvelopeOf<typeof Topics.PLATFORM_DIAMONDS>, @Ctx() ctx: EventContext): Promise<void> {
    switch (envelope.event_type) {
      case EventTypes.DIAMOND_UPSERTED:
        return this.upserted(envelope.data, envelope.revision, ctx);
      case EventTypes.DIAMOND_DELETED:
        return this.diamonds.markDeleted(ctx.manager, envelope.data.diamond_id, envelope.revision);
    }
  }

  private async upserted(record: DiamondV1, revision: number, ctx: EventContext): Promise<void> {
    const hash = newestScanReportHash(record);
    // Parse before writing: the report's outcome is cached by hash outside this transaction.
    const facts = await this.eligibility.reportFacts(hash);
    await this.diamonds.upsert(ctx.manager, {
      diamond_id: record.diamond_id,
      revision,
      version_id: record.version_id,
      lifecycle_state: record.lifecycle_state,
      current_stage: record.current_stage,
      unlock_status: record.unlock_status,
      carats: declaredCarats(record),
      shape: typeof record.polished?.shape === 'string' ? record.polished.shape : null,
      holder_participant_id: holderOf(record),
      scan_report_hash: hash,
    });
    await this.eligibility.publishIfChanged(ctx.manager, record.diamond_id, { hash, facts });
  }
}
