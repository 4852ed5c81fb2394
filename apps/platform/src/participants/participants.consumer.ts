import { Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { ConsumerGroups, EventTypes, ParticipantOnboardedData, Topics } from '@dtp/domain';
import { EventTransport, runConsumer, RunningConsumer } from '@dtp/events';
import { PlatformDb, Sql, sqlOfManager } from '../db/platform-db';
import { DiamondChanges } from '../diamonds/diamond-changes';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ParticipantRow } from './participant.row';
import { ParticipantDirectory } from './participant-directory';
import { lockParticipant } from './participant-lock';
import { ParticipantsRepository } from './participants.repository';
import { producerProvenance } from './provenance';

/**
 * Consumes auth.participants.v1 (idempotent by revision through @dtp/events' runConsumer): keeps `participants`
 * current and, when a producer's onboarding arrives after it already registered diamonds (its first call raced
 * the event), replaces the provisional provenance taken from the token with the declared one, as a new version
 * of each such diamond.
 */
@Injectable()
export class ParticipantsConsumer {
  private consumer?: RunningConsumer;

  constructor(
    private readonly ds: DataSource,
    private readonly db: PlatformDb,
    private readonly repo: ParticipantsRepository,
    private readonly directory: ParticipantDirectory,
    private readonly changes: DiamondChanges,
    private readonly diamonds: DiamondsRepository,
  ) {}

  async start(transport: EventTransport, logger: Logger, registry?: Registry): Promise<void> {
    this.consumer = await runConsumer({
      transport,
      topic: Topics.AUTH_PARTICIPANTS,
      group: ConsumerGroups.PLATFORM,
      dataSource: this.ds,
      logger,
      registry,
      handle: async (envelope, ctx) => {
        if (envelope.event_type !== EventTypes.PARTICIPANT_ONBOARDED) return;
        const row = await this.apply(sqlOfManager(ctx.manager), envelope.data, envelope.revision);
        // Remember only after commit would be stricter; a rolled-back row is corrected by the cache's expiry.
        if (row) {
          this.directory.remember(row);
          this.db.committed(); // provenance fix-ups wrote outbox rows; the trailing wake-up follows the commit
        }
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.close();
    this.consumer = undefined;
  }

  /** Applies one participant state inside the caller's transaction; null when it was stale. */
  async apply(sql: Sql, data: ParticipantOnboardedData, revision: number): Promise<ParticipantRow | null> {
    await lockParticipant(sql, data.participant_id);
    const stored = await this.repo.upsert(sql, data, revision);
    if (!stored) return null;
    if (stored.role === 'producer') {
      const pending = await this.diamonds.pendingProvenanceOf(sql, stored.participant_id);
      const provenance = producerProvenance(stored);
      for (const d of pending) await this.changes.commit(sql, d, { provenance, provenance_pending: false });
    }
    return stored;
  }
}
