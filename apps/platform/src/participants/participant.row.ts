import type { Role } from '@dtp/domain';

/** What platform knows about a participant, from `participant.onboarded` on auth.participants.v1. */
export interface ParticipantRow {
  participant_id: string;
  name: string;
  role: Role;
  provenance: { name: string; type: string; country_code?: string | null } | null;
  base_url: string | null;
  revision: number | string;
}
