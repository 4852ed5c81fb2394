import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { EnvelopeOf, EventTypes, Topics } from '@dtp/domain';
import { EventContext, EventRoute } from '@dtp/events';
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
  async onShareEvent(@Payload() event: EnvelopeOf<typeof Topics.PLATFORM_SHARES>, @Ctx() ctx: EventContext): Promise<void> {
    switch (event.event_type) {
      case EventTypes.SHARE_CREATED:
        return this.repo.shareCreated(event.data, event.revision, ctx.manager);
      case EventTypes.SHARE_REVOKED:
        return this.repo.shareRevoked(event.data, event.revision, ctx.manager);
    }
  }

  @EventPattern(Topics.AUTH_PARTICIPANTS, { name: 'participant-names' } satisfies EventRoute)
  async onParticipantsEvent(@Payload() event: EnvelopeOf<typeof Topics.AUTH_PARTICIPANTS>, @Ctx() ctx: EventContext): Promise<void> {
    switch (event.event_type) {
      case EventTypes.PARTICIPANT_ONBOARDED:
        return this.repo.participant(event.data, event.revision, ctx.manager);
      case EventTypes.CLIENT_REVOKED:
        return; // the deny-list's (RevocationEventsController)
      case EventTypes.CLIENT_CERTIFICATE_CHANGED:
        return; // the guard's certificate registry's (libs/auth-guard)
    }
  }
}
