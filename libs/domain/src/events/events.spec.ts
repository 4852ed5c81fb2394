import type { DiamondV1 } from '../records/diamond-v1';
import { newDiamondId, newVersionId } from '../rules/ids';
import { envelopeJson, makeEnvelope, topicOf } from './envelope';
import { TOPIC_EVENT_TYPES } from './registry';
import { ConsumerGroups, EVENT_TYPE_VALUES, Topics } from './topics';
import { validateEnvelope } from './validate-envelope';

const DIAMOND_ID = newDiamondId();
const PARTICIPANT = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';

function diamond(): DiamondV1 {
  return {
    assurance_level: 'assured',
    current_stage: 'rough',
    diamond_id: DIAMOND_ID,
    id: '0b6c2f7e-1d2a-4e3b-9c4d-5e6f7a8b9c0d',
    is_current: true,
    lifecycle_state: 'rough',
    participant_timestamp: '2024-05-01T10:00:00Z',
    polished: {},
    provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true },
    possession_state: 'held',
    producer_uuid: PARTICIPANT,
    rough: { carats: '1.25' },
    rough_check: false,
    polished_objective_verification_results: [],
    rough_objective_verification_results: [],
    system_timestamp: '2024-05-01T10:00:01.123Z',
    unlock_status: 'locked',
    version_id: newVersionId(),
    participant_id: 'ERP-1',
    diamond_parent_id: null,
    gis_status: null,
  };
}

const grading = {
  grader_certificate_number: 'C-1',
  grader_report_number: 'R-1',
  grading_lab: 'GIA' as const,
  graded_date: '2024-06-01T00:00:00Z',
  carats: '1.01',
  shape: 'Round' as const,
  colour: 'E' as const,
};

describe('topics', () => {
  it('has versioned names and consumer groups', () => {
    expect(Topics).toEqual({
      AUTH_PARTICIPANTS: 'auth.participants.v1',
      PLATFORM_DIAMONDS: 'platform.diamonds.v1',
      PLATFORM_SHIPMENTS: 'platform.shipments.v1',
      GIS_GRADINGS: 'gis.gradings.v1',
      GIS_ELIGIBILITY: 'gis.eligibility.v1',
      PLATFORM_CUSTODY: 'platform.custody.v1',
      PLATFORM_SHARES: 'platform.shares.v1',
      GIS_VALIDATIONS: 'gis.validations.v1',
    });
    expect(ConsumerGroups).toEqual({ PLATFORM: 'platform', SEARCH: 'search', GIS: 'gis' });
  });

  it('routes every event type to exactly one topic', () => {
    expect(TOPIC_EVENT_TYPES).toEqual({
      'auth.participants.v1': ['participant.onboarded', 'client.revoked', 'client_certificate.changed'],
      'platform.diamonds.v1': ['diamond.upserted', 'diamond.deleted'],
      'platform.shipments.v1': ['shipment.changed'],
      'gis.gradings.v1': ['grading.submitted'],
      'gis.eligibility.v1': ['eligibility.changed'],
      'platform.custody.v1': ['custody.checkpoint'],
      'platform.shares.v1': ['share.created', 'share.revoked'],
      'gis.validations.v1': ['validation.answered'],
    });
    expect(EVENT_TYPE_VALUES.map(topicOf)).toHaveLength(12);
  });
});

describe('makeEnvelope', () => {
  it('fills event_id, schema_version, occurred_at and the key', () => {
    const env = makeEnvelope({ event_type: 'diamond.upserted', data: diamond(), revision: 1 });
    expect(env.event_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(env.event_type).toBe('diamond.upserted');
    expect(env.schema_version).toBe(1);
    expect(Number.isNaN(Date.parse(env.occurred_at))).toBe(false);
    expect(env.key).toBe(DIAMOND_ID);
    expect(env.revision).toBe(1);
    expect(makeEnvelope({ event_type: 'diamond.deleted', data: { diamond_id: DIAMOND_ID }, revision: 2 }).event_id).not.toBe(env.event_id);
  });

  it('honours given occurred_at and refuses a bad revision', () => {
    const env = makeEnvelope({
      event_type: 'eligibility.changed',
      data: { diamond_id: DIAMOND_ID, gis_status: 'eligible' },
      revision: 3,
      occurred_at: new Date('2024-01-01T00:00:00Z'),
    });
    expect(env.occurred_at).toBe('2024-01-01T00:00:00.000Z');
    expect(() => makeEnvelope({ event_type: 'diamond.deleted', data: { diamond_id: DIAMOND_ID }, revision: 0 })).toThrow();
  });
});

describe('envelopeJson', () => {
  it("writes an envelope's text from its data's text exactly as JSON.stringify does", () => {
    const record = { ...diamond(), participant_id: 'ERP "1" \\ \u00e9\u{1F48E}\n', rough: { carats: '1.25', tags: { z: 1, a: [null] } } };
    const envelopes = [
      makeEnvelope({ event_type: 'diamond.upserted', data: record, revision: 7 }),
      makeEnvelope({ event_type: 'diamond.deleted', data: { diamond_id: DIAMOND_ID }, revision: 2 }),
    ];
    for (const env of envelopes) expect(envelopeJson(env, JSON.stringify(env.data))).toBe(JSON.stringify(env));
    // What it cannot write from the data's text (data not last, no data), it writes whole.
    const { data: _dropped, ...noData } = envelopes[1];
    const dataFirst = { data: { a: 1 }, ...noData };
    expect(envelopeJson(dataFirst, 'ignored')).toBe(JSON.stringify(dataFirst));
    expect(envelopeJson({ ...noData, data: undefined }, 'ignored')).toBe(JSON.stringify(noData));
    expect(envelopeJson({ data: [1] } as never, '[1]')).toBe('{"data":[1]}');
  });
});

describe('validateEnvelope', () => {
  const valid = {
    'participant.onboarded': makeEnvelope({
      event_type: 'participant.onboarded',
      data: { participant_id: PARTICIPANT, name: 'Acme', role: 'producer', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } },
      revision: 1,
    }),
    'client.revoked': makeEnvelope({
      event_type: 'client.revoked',
      data: { client_id: 'dtp_AbC-123_xyz', participant_id: PARTICIPANT, revoked_at: '2025-11-21T10:00:00.123Z' },
      revision: 1,
    }),
    'client_certificate.changed': makeEnvelope({
      event_type: 'client_certificate.changed',
      data: {
        certificate_id: '8d0c6c52-3a3e-4f0e-9d1f-0b6f9e7f1a21',
        participant_id: PARTICIPANT,
        role: 'producer',
        name: 'Acme',
        x5t_s256: 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2',
        not_after: '2027-11-21T10:00:00.000Z',
        removed_at: null,
      },
      revision: 1,
    }),
    'diamond.upserted': makeEnvelope({ event_type: 'diamond.upserted', data: diamond(), revision: 4 }),
    'diamond.deleted': makeEnvelope({ event_type: 'diamond.deleted', data: { diamond_id: DIAMOND_ID }, revision: 5 }),
    'shipment.changed': makeEnvelope({
      event_type: 'shipment.changed',
      data: {
        shipment_id: 'shp1',
        name: 'June',
        shipment_type: 'rough',
        status: 'action_required',
        sender_participant_id: PARTICIPANT,
        recipient_participant_id: 'r1',
        total_diamonds: 1,
        diamonds: [{ diamond_id: DIAMOND_ID, transfer_state: 'transfer_in_pending' }],
        created_at: '2024-06-01T00:00:00Z',
        updated_at: '2024-06-01T00:00:00Z',
      },
      revision: 1,
    }),
    'grading.submitted': makeEnvelope({
      event_type: 'grading.submitted',
      data: { diamond_id: DIAMOND_ID, grading_id: 'g1', holder: PARTICIPANT, data: grading },
      revision: 1,
    }),
    'eligibility.changed': makeEnvelope({
      event_type: 'eligibility.changed',
      data: { diamond_id: DIAMOND_ID, gis_status: null },
      revision: 1,
    }),
    'validation.answered': makeEnvelope({
      event_type: 'validation.answered',
      data: {
        request_id: '3b241101-e2bb-4255-8caf-4136c566a962',
        diamond_id: DIAMOND_ID,
        verification_status: 'Verified',
        lab_participant_id: PARTICIPANT,
        answered_at: '2025-11-21T10:00:00.000Z',
      },
      revision: 1,
    }),
  };

  it.each(Object.entries(valid))('accepts a valid %s on its topic', (type, env) => {
    const result = validateEnvelope(topicOf(type as 'diamond.deleted'), env);
    expect(result).toEqual({ ok: true, envelope: env });
  });

  it('accepts JSON text and bytes and tolerates unknown members', () => {
    const env = { ...valid['diamond.upserted'], trace_id: 't', data: { ...diamond(), future_member: 1 } };
    expect(validateEnvelope(Topics.PLATFORM_DIAMONDS, JSON.stringify(env)).ok).toBe(true);
    expect(validateEnvelope(Topics.PLATFORM_DIAMONDS, Buffer.from(JSON.stringify(env))).ok).toBe(true);
  });

  const reasonFor = (topic: string, value: unknown) => {
    const result = validateEnvelope(topic, value);
    return result.ok ? 'ok' : result.reason;
  };
  const upserted = valid['diamond.upserted'];

  it.each([
    ['tombstone', null, /tombstone/],
    ['bad JSON', '{', /not valid JSON/],
    ['an array', [], /must be an object/],
    ['bad event_id', { ...upserted, event_id: 'x' }, /event_id/],
    ['event type of another topic', { ...valid['grading.submitted'] }, /not published on topic platform.diamonds.v1/],
    ['unknown event type', { ...upserted, event_type: 'diamond.exploded' }, /not published/],
    ['unsupported schema_version', { ...upserted, schema_version: 2 }, /schema_version 2/],
    ['bad occurred_at', { ...upserted, occurred_at: 'yesterday' }, /occurred_at/],
    ['empty key', { ...upserted, key: '' }, /key must be/],
    ['revision 0', { ...upserted, revision: 0 }, /revision/],
    ['fractional revision', { ...upserted, revision: 1.5 }, /revision/],
    ['data not an object', { ...upserted, data: 'x' }, /data must be an object/],
    ['bad diamond_id', { ...upserted, data: { ...diamond(), diamond_id: 'BAD' } }, /data\.diamond_id/],
    ['bad lifecycle_state', { ...upserted, data: { ...diamond(), lifecycle_state: 'cut' } }, /data\.lifecycle_state/],
    ['missing version_id', { ...upserted, data: { ...diamond(), version_id: undefined } }, /data\.version_id/],
    ['key not the aggregate id', { ...upserted, key: 'someoneelse' }, /does not match/],
  ])('rejects %s', (_label, value, reason) => {
    expect(reasonFor(Topics.PLATFORM_DIAMONDS, value)).toMatch(reason);
  });

  it('rejects an unknown topic', () => {
    expect(reasonFor('platform.diamonds.v2', upserted)).toMatch(/unknown topic/);
  });

  it('checks each payload class', () => {
    const p = valid['participant.onboarded'];
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...p, data: { ...p.data, role: 'admin' } })).toMatch(/data\.role/);
    const r = valid['client.revoked'];
    expect(r.key).toBe('dtp_AbC-123_xyz'); // keyed by client: compaction keeps every revocation beside the onboarding
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...r, data: { ...r.data, revoked_at: 'yesterday' } })).toMatch(/data\.revoked_at/);
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...r, data: { ...r.data, participant_id: 'p1' } })).toMatch(/data\.participant_id/);
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...r, key: 'x\u0000', data: { ...r.data, client_id: 'x\u0000' } })).toMatch(/data\.client_id/);
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...r, key: 'other' })).toMatch(/does not match/);
    const { revoked_at: _gone, ...noTime } = r.data;
    expect(reasonFor(Topics.AUTH_PARTICIPANTS, { ...r, data: noTime })).toMatch(/data\.revoked_at/);
    expect(reasonFor(Topics.PLATFORM_DIAMONDS, r)).toMatch(/not published on topic platform.diamonds.v1/);
    const g = valid['grading.submitted'];
    expect(reasonFor(Topics.GIS_GRADINGS, { ...g, data: { ...g.data, data: { ...grading, carats: 'x' } } })).toMatch(/data\.data\.carats/);
    const s = valid['shipment.changed'];
    expect(
      reasonFor(Topics.PLATFORM_SHIPMENTS, {
        ...s,
        data: { ...s.data, diamonds: [{ diamond_id: 'd', transfer_state: 'lost' }] },
      }),
    ).toMatch(/data\.diamonds\.0\.transfer_state/);
    const e = valid['eligibility.changed'];
    expect(reasonFor(Topics.GIS_ELIGIBILITY, { ...e, data: { diamond_id: DIAMOND_ID } })).toMatch(/data\.gis_status/);
    expect(reasonFor(Topics.GIS_ELIGIBILITY, { ...e, data: { diamond_id: DIAMOND_ID, gis_status: 'eligible' } })).toBe('ok');
  });
});
