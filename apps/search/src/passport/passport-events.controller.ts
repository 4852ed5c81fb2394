import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { EventTypes, KnownEventEnvelope, Topics } from '@dtp/domain';
import { EventContext, EventRoute, ParkEventError } from '@dtp/events';
import { PassportRepository } from './passport.repository';

/**
 * Feeds the passport's tables, in search's consumer group (idempotent by revision, like the read model):
 * share links from platform.shares.v1, and participants' public names from `participant.onboarded` on
 * auth.participants.v1 (search's other reader of that topic, the token deny-list, keeps nothing in the database
 * and reads under a group of each instance; this one is a service-wide consumer).
 */
@Controller()
export class PassportEventsController {
  constructor(private readonly repo: PassportRepository) {}

  @EventPattern(Topics.PLATFORM_SHARES, { name: 'shares' } satisfies EventRoute)
  async onShareEvent(@Payload() event: KnownEventEnvelope, @Ctx() ctx: EventContext): Promise<void> {
    switch (event.event_type) {
      case EventTypes.SHARE_CREATED:
        return this.repo.shareCreated(event.data, event.revision, ctx.manager);
      case EventTypes.SHARE_REVOKED:
        return this.repo.shareRevoked(event.data, event.revision, ctx.manager);
      case EventTypes.PARTICIPANT_ONBOARDED:
      case EventTypes.CLIENT_REVOKED:
      case EventTypes.DIAMOND_UPSERTED:
      case EventTypes.DIAMOND_DELETED:
      case EventTypes.SHIPMENT_CHANGED:
      case EventTypes.GRADING_SUBMITTED:
      case EventTypes.ELIGIBILITY_CHANGED:
      case EventTypes.CUSTODY_CHECKPOINT:
        throw new ParkEventError(`search does not handle ${event.event_type} on ${Topics.PLATFORM_SHARES}`);
    }
  }

  @EventPattern(Topics.AUTH_PARTICIPANTS, { name: 'participant-names' } satisfies EventRoute)
  async onParticipantsEvent(@Payload() event: KnownEventEnvelope, @Ctx() ctx: EventContext): Promise<void> {
    if (event.event_type !== EventTypes.PARTICIPANT_ONBOARDED) return; // client.revoked: the deny-list's
    await this.repo.participant(event.data, event.revision, ctx.manager);
  }
}
