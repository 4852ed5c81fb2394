import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { EnvelopeOf, EventTypes, Topics } from '@dtp/domain';
import { EventContext, EventRoute, ParkEventError, RARE_EVENTS_FETCH_WAIT_MS } from '@dtp/events';
import { counterOf, LOGGER, ServiceMetrics } from '@dtp/service-kit';
import { CustodyRefusal, CustodyRepository } from './custody.repository';

/**
 * Builds search's copy of the custody log from platform.custody.v1 (key = log id, revision = checkpoint number):
 * each `custody.checkpoint` appends the entries it carries to the Merkle tree, in the consumer's transaction,
 * and stores the checkpoint with whether search's own root of its tree size equals the signed one. A checkpoint
 * that does not match is kept (`root_matches` false), counted (`custody_root_mismatches_total`), logged as an
 * error and never served. An event that does not continue the tree (a gap, a conflicting entry) is parked.
 */
@Controller()
export class CustodyEventsController {
  private readonly mismatches: Counter;

  constructor(
    @Inject(CustodyRepository) private readonly repo: CustodyRepository,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: ServiceMetrics,
  ) {
    this.mismatches = counterOf(metrics.registry, {
      name: 'custody_root_mismatches_total',
      help: "Custody checkpoints whose signed root differs from the root of search's own tree (never served)",
    });
  }

  // A consumer of its own: a checkpoint of 256 entries takes tens of milliseconds to check and store, and in the
  // shared consumer the diamonds topic's next fetch would wait for it (docs/events.md, "One consumer per service").
  @EventPattern(Topics.PLATFORM_CUSTODY, { name: 'custody', ownConsumer: true, fetchWaitMs: RARE_EVENTS_FETCH_WAIT_MS } satisfies EventRoute)
  async onCustodyEvent(@Payload() event: EnvelopeOf<typeof Topics.PLATFORM_CUSTODY>, @Ctx() ctx: EventContext): Promise<void> {
    switch (event.event_type) {
      case EventTypes.CUSTODY_CHECKPOINT:
        return this.applyCheckpoint(event, ctx);
    }
  }

  private async applyCheckpoint(event: EnvelopeOf<typeof Topics.PLATFORM_CUSTODY>, ctx: EventContext): Promise<void> {
    const { checkpoint, entries } = event.data;
    try {
      const applied = await this.repo.applyCheckpoint(checkpoint, event.revision, entries, ctx.manager);
      if (!applied.rootMatches) {
        ctx.tx.afterCommit(() => {
          this.mismatches.inc();
          this.logger.error(
            {
              log_id: checkpoint.log_id,
              checkpoint: event.revision,
              tree_size: checkpoint.tree_size,
              signed_root: checkpoint.root_hash,
              own_root: applied.root,
            },
            "custody checkpoint root differs from the root of search's tree: not served",
          );
        });
      }
    } catch (err) {
      if (err instanceof CustodyRefusal) {
        this.logger.error({ log_id: checkpoint.log_id, checkpoint: event.revision, reason: err.reason }, 'custody checkpoint refused: parked');
        throw new ParkEventError(err.reason);
      }
      throw err;
    }
  }
}
