import type { Caller } from '@dtp/auth-guard';
import { provenanceForRegistration } from './provenance';
import type { ParticipantRow } from './participant.entity';

const producer: Caller = { participantId: 'p-1', role: 'producer', clientId: 'c', name: 'Acme Mining' };
const row = (provenance: ParticipantRow['provenance']): ParticipantRow => ({
  participant_id: 'p-1',
  name: 'Acme Mining',
  role: 'producer',
  provenance,
  base_url: null,
  revision: 1,
  updated_at: new Date(0),
});

describe('provenanceForRegistration', () => {
  it("uses a producer's declared provenance, locked, with its country", () => {
    expect(provenanceForRegistration(producer, row({ name: 'Jwaneng', type: 'mine', country_code: 'BW' }))).toEqual({
      provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
      pending: false,
    });
  });

  it('falls back to the participant name when no provenance was declared', () => {
    expect(provenanceForRegistration(producer, row(null))).toEqual({
      provenance: { provenance_name: 'Acme Mining', provenance_type: null, is_locked: true, is_country_code_available: false },
      pending: false,
    });
  });

  it("takes the token's name and marks it pending while the onboarding event has not arrived", () => {
    expect(provenanceForRegistration(producer, null)).toEqual({
      provenance: { provenance_name: 'Acme Mining', provenance_type: null, is_locked: true, is_country_code_available: false },
      pending: true,
    });
    expect(provenanceForRegistration({ ...producer, name: undefined }, null).provenance.provenance_name).toBeNull();
  });

  it("leaves a manufacturer's provenance for the platform to set", () => {
    expect(provenanceForRegistration({ ...producer, role: 'manufacturer' }, row({ name: 'X', type: 'mine' }))).toEqual({
      provenance: { provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false },
      pending: false,
    });
  });
});
