import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { EnvelopeOf, EventTypes, ParticipantOnboardedData, Topics } from '@dtp/domain';
import type { EventContext } from '@dtp/events';
import type { Tx } from '@dtp/database';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ParticipantRow } from './participant.entity';
import { ParticipantDirectory } from './participant-directory';
import { lockParticipant } from './participant-lock';
import { ParticipantsRepository } from './participants.repository';
import { producerProvenance } from './provenance';

/**
 * Consumes auth.participants.v1 in platform's group (idempotent by revision: the EventsServer runs it through
 * @dtp/events' runConsumer): keeps `participants` current and, when a producer's onboarding arrives after it
 * already registered diamonds (its first call raced the event), replaces the provisional provenance taken from
 * the token with the declared one, as a new version of each such diamond.
 */
@Controller()
export class ParticipantEventsController {
  constructor(
    private readonly repo: ParticipantsRepository,
    private readonly directory: ParticipantDirectory,
    private readonly changes: DiamondChanges,
    private readonly diamonds: DiamondsRepository,
  ) {}

  @EventPattern(Topics.AUTH_PARTICIPANTS)
  async onParticipantsEvent(@Payload() envelope: EnvelopeOf<typeof Topics.AUTH_PARTICIPANTS>, @Ctx() ctx: EventContext): Promise<void> {
    switch (envelope.event_type) {
      case EventTypes.PARTICIPANT_ONBOARDED: {
        const row = await this.apply(ctx.tx, envelope.data, envelope.revision);
        // The directory's cache learns the row once it is committed.
        if (row) ctx.tx.afterCommit(() => this.directory.remember(row));
        return;
      }
      case EventTypes.CLIENT_REVOKED:
        return; // the deny-list's (RevocationEventsController)
      case EventTypes.CLIENT_CERTIFICATE_CHANGED:
        return; // the guard's certificate registry's (libs/auth-guard)
    }
  }

  /** Applies one participant state inside the caller's transaction; null when it was stale. */
  async apply(sql: Tx, data: ParticipantOnboardedData, revision: number): Promise<ParticipantRow | null> {
    await lockParticipant(sql, data.participant_id);
    const stored = await this.repo.upsert(sql, data, revision);
    if (!stored) return null;
    if (stored.role === 'producer') {
      const pending = await this.diamonds.pendingProvenanceOf(sql, stored.participant_id);
      const provenance = producerProvenance(stored);
      // Nobody's call made this change: `record_updated`, no actor.
      for (const d of pending) await this.changes.commit(sql, d, { provenance, provenance_pending: false }, { action: 'record_updated', actor: null });
    }
    return stored;
  }
}
