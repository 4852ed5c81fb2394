import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { ConsumerGroups, DiamondV1, Topics } from '@dtp/domain';
import { EventBatchContext, EventItem, EventRoute } from '@dtp/events';
import { ReadModelRepository } from './read-model.repository';

/** The state name of search's progress in consumer_state (the same for the live consumer and a rebuild). */
export const SEARCH_CONSUMER = ConsumerGroups.SEARCH;

/**
 * Keeps the read model in step with platform.diamonds.v1: `diamond.upserted` stores the whole record and its
 * file index, `diamond.deleted` and tombstones leave a deletion marker. Idempotent twice over: the consumer
 * framework skips revisions it holds, and every write is conditional on a newer revision. A `many` route: the
 * upserts of a batch (distinct diamonds) are written in one statement, which keeps search up with registrations
 * at the rates of `npm run bench -- search`. A rebuild (rebuild.ts) replays the topic through the same handler
 * under a fresh group.
 */
@Controller()
export class DiamondEventsController {
  constructor(private readonly repo: ReadModelRepository) {}

  @EventPattern(Topics.PLATFORM_DIAMONDS, { tombstones: true, stateName: SEARCH_CONSUMER, many: true } satisfies EventRoute)
  async onDiamondEvents(@Payload() items: EventItem<typeof Topics.PLATFORM_DIAMONDS>[], @Ctx() ctx: EventBatchContext): Promise<void> {
    const upserts: { record: DiamondV1; revision: number }[] = [];
    for (const { event, key } of items) {
      if (event === null) {
        await this.repo.applyTombstone(key, ctx.manager);
        continue;
      }
      switch (event.event_type) {
        case 'diamond.upserted':
          upserts.push({ record: event.data, revision: event.revision });
          break;
        case 'diamond.deleted':
          await this.repo.markDeleted(event.data.diamond_id, event.revision, ctx.manager);
          break;
      }
    }
    await this.repo.upsertMany(upserts, ctx.tx); // the same transaction, the statement prepared per connection
  }
}
