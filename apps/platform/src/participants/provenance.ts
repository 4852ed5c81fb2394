import type { Caller } from '@dtp/auth-guard';
import type { DiamondV1Provenance } from '@dtp/domain';
import type { ParticipantRow } from './participant.entity';

export interface ProvenanceDecision {
  provenance: DiamondV1Provenance;
  /** True when it came from the token because the onboarding event has not arrived yet (fixed on arrival). */
  pending: boolean;
}

/** Provenance of a producer from its onboarding data; locked (the producer declared it). */
export function producerProvenance(p: ParticipantRow): DiamondV1Provenance {
  const country = p.provenance?.country_code ?? null;
  return {
    provenance_name: p.provenance?.name ?? p.name,
    provenance_type: p.provenance?.type ?? null,
    is_locked: true,
    is_country_code_available: country !== null,
    ...(country !== null ? { country_code: country } : {}),
  };
}

/**
 * The provenance of a rough diamond registered against the caller's own box (spec: "Only a producer can declare
 * provenance when registering; for a manufacturer's rough diamond the platform sets provenance after verifying
 * traceability data"):
 * - producer, onboarding event received: its declared provenance, locked;
 * - producer, event not received yet (the call came the moment onboarding returned): the token's name, locked,
 *   marked pending so the event's arrival replaces it with the declared provenance;
 * - manufacturer: not known yet (nulls, not locked), for the platform to set after verification.
 */
export function provenanceForRegistration(caller: Caller, participant: ParticipantRow | null): ProvenanceDecision {
  if (caller.role !== 'producer') {
    return {
      provenance: { provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false },
      pending: false,
    };
  }
  if (participant) return { provenance: producerProvenance(participant), pending: false };
  return {
    provenance: { provenance_name: caller.name ?? null, provenance_type: null, is_locked: true, is_country_code_available: false },
    pending: true,
  };
}
