import { Injectable } from '@nestjs/common';
import { ParticipantRow } from './participant.entity';
import { ParticipantsRepository } from './participants.repository';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Participants as platform knows them, with a small in-memory cache on the registration hot path. Only found
 * participants are cached (a participant whose onboarding event has not arrived is looked up again next time),
 * and entries expire after a minute so a replica that did not consume an update still converges.
 */
@Injectable()
export class ParticipantDirectory {
  private readonly cache = new Map<string, { row: ParticipantRow; expires: number }>();

  constructor(private readonly repo: ParticipantsRepository) {}

  async get(participantId: string): Promise<ParticipantRow | null> {
    const hit = this.cache.get(participantId);
    if (hit && hit.expires > Date.now()) return hit.row;
    const row = await this.repo.find(null, participantId);
    if (row) this.remember(row);
    else this.cache.delete(participantId);
    return row;
  }

  /** Drops a cached entry (the next lookup reads the database). */
  forget(participantId: string): void {
    this.cache.delete(participantId);
  }

  remember(row: ParticipantRow): void {
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(row.participant_id, { row, expires: Date.now() + TTL_MS });
  }
}
