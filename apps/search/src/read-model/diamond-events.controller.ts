import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { ConsumerGroups, DiamondV1, KnownEventEnvelope, Topics } from '@dtp/domain';
import { EventContext, EventRoute, ParkEventError } from '@dtp/events';
import { ReadModelRepository } from './read-model.repository';

/** The state name of search's progress in consumer_state (the same for the live consumer and a rebuild). */
export const SEARCH_CONSUMER = ConsumerGroups.SEARCH;

/**
 * Keeps the read model in step with platform.diamonds.v1: `diamond.upserted` stores the whole record and its
 * file index, `diamond.deleted` and tombstones leave a deletion marker. Idempotent twice over: the consumer
 * framework skips revisions it holds, and every write is conditional on a newer revision. A rebuild
 * (rebuild.ts) replays the topic through the same handler under a fresh group.
 */
@Controller()
export class DiamondEventsController {
  constructor(private readonly repo: ReadModelRepository) {}

  @EventPattern(Topics.PLATFORM_DIAMONDS, { tombstones: true, stateName: SEARCH_CONSUMER } satisfies EventRoute)
  async onDiamondEvent(@Payload() event: KnownEventEnvelope | null, @Ctx() ctx: EventContext): Promise<void> {
    if (event === null) {
      await this.repo.applyTombstone(ctx.key, ctx.manager);
      return;
    }
    switch (event.event_type) {
      case 'diamond.upserted':
        await this.repo.upsert(event.data as DiamondV1, event.revision, ctx.manager);
        return;
      case 'diamond.deleted':
        await this.repo.markDeleted(event.data.diamond_id, event.revision, ctx.manager);
        return;
      case 'participant.onboarded':
      case 'shipment.changed':
      case 'grading.submitted':
      case 'eligibility.changed':
      case 'client.revoked':
      case 'custody.checkpoint':
      case 'share.created':
      case 'share.revoked':
        throw new ParkEventError(`search does not handle ${event.event_type}`);
    }
  }
}
