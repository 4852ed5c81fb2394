import { sampleRow } from '../../test/diamond.fixture';
import { inheritedOrigin, polishedSummary, roughSummary, toShipmentChanged, toShipmentView, totalCarats } from './shipment.mapper';
import { limitExceeded, weightLimit } from './shipment-box.resolver';
import type { ShipmentDiamondRow, ShipmentRow } from './shipment.entity';

const shipment = (over: Partial<ShipmentRow> = {}): ShipmentRow => ({
  shipment_id: '01hv5x4k2m8q9r7s6t5u4v3w2z',
  name: 'Parcel',
  shipment_type: 'rough',
  status: 'action_required',
  sender_id: 'p-1',
  recipient_id: 'p-2',
  sender_base_url: 'https://live.example',
  total_diamonds: 3,
  total_carats: '3.99',
  producer_uuid: 'p-1',
  provenance: { provenance_name: 'Mine', provenance_type: 'mine', is_locked: true, is_country_code_available: false },
  registered_count: 0,
  registered_carats: '0',
  revision: '2',
  created_at: new Date('2024-03-01T08:05:59.999Z'),
  updated_at: new Date('2024-03-02T10:00:00Z'),
  ...over,
});

describe('shipment mapper', () => {
  it('summarises rough data (carats as text, sight fields as numbers, nulls for what is missing)', () => {
    expect(roughSummary(sampleRow({ rough: { carats: '1.25', colour: 'D' }, sight_no: '12', sight_year: '2024', box_id: 'B' }))).toEqual({
      carats: '1.25',
      colour: 'D',
      model: null,
      quality: null,
      stress: null,
      box_id: 'B',
      sight_year: 2024,
      sight_number: 12,
    });
    expect(roughSummary(sampleRow({ rough: {} }))).toBeNull();
  });

  it('summarises polished data only at the polished stage', () => {
    expect(polishedSummary(sampleRow())).toBeNull();
    expect(
      polishedSummary(sampleRow({ current_stage: 'polished', lifecycle_state: 'polished', polished: { carats: '0.5', shape: 'Round', images: [] } })),
    ).toEqual({
      carats: '0.5',
      clarity: null,
      colour: null,
      cut_grade: null,
      shape: 'Round',
    });
  });

  it('adds carats in decimal arithmetic', () => {
    const rows = [sampleRow({ rough: { carats: '0.1' } }), sampleRow({ rough: { carats: '0.2' } })];
    expect(totalCarats('rough', rows)).toBe('0.3');
    expect(totalCarats('polished', [sampleRow({ polished: { carats: '0.35' } }), sampleRow({ polished: {} })])).toBe('0.35');
  });

  it('inherits a uniform origin and leaves a mixed one for the platform to set', () => {
    const a = sampleRow();
    expect(inheritedOrigin([a, sampleRow()])).toEqual({ producerUuid: 'p-1', provenance: a.provenance });
    expect(inheritedOrigin([a, sampleRow({ producer_uuid: 'p-9' })])).toEqual({
      producerUuid: 'p-1',
      provenance: { provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false },
    });
  });

  it("renders the spec's shipment with minute timestamps and the event with ISO ones", () => {
    const entry: ShipmentDiamondRow = {
      shipment_id: '01hv5x4k2m8q9r7s6t5u4v3w2z',
      diamond_id: 'd1',
      position: 0,
      transfer_state: 'transfer_in_confirmed',
      lifecycle_state: 'rough',
      rough: null,
      polished: null,
      created_at: new Date('2024-03-01T08:05:00Z'),
      updated_at: new Date('2024-03-02T23:59:30Z'),
    };
    expect(toShipmentView(shipment(), [entry])).toEqual({
      id: '01hv5x4k2m8q9r7s6t5u4v3w2z',
      name: 'Parcel',
      sender: 'https://live.example',
      shipment_type: 'rough',
      status: 'action_required',
      total_diamonds: 3,
      created_at: '2024-03-01T08:05+0000',
      diamonds: [
        {
          created_at: '2024-03-01T08:05+0000',
          updated_at: '2024-03-02T23:59+0000',
          diamond_id: 'd1',
          lifecycle_state: 'rough',
          transfer_state: 'transfer_in_confirmed',
          rough: null,
          polished: null,
        },
      ],
    });
    expect(toShipmentChanged(shipment(), [entry])).toMatchObject({
      sender_participant_id: 'p-1',
      recipient_participant_id: 'p-2',
      created_at: '2024-03-01T08:05:59.999Z',
      diamonds: [{ diamond_id: 'd1', transfer_state: 'transfer_in_confirmed' }],
    });
  });

  it('states the registration limits: count, then weight = total + 0.01 ct per shipped diamond', () => {
    expect(weightLimit({ total_carats: '3.99', total_diamonds: 3 })).toBe('4.02');
    const byCount = limitExceeded(shipment({ registered_count: 3 }), '0.1');
    expect(byCount.kind).toBe('conflict');
    expect(byCount.body).toMatchObject({ reason: 'shipment_count_exceeded', limit_diamonds: 3 });
    const byWeight = limitExceeded(shipment({ registered_count: 1, registered_carats: '2.5' }), '1.53');
    expect(byWeight.body).toMatchObject({ reason: 'shipment_weight_exceeded', limit_carats: '4.02', registered_carats: '2.5' });
    expect(byWeight.body.message).toContain('4.03 ct');
  });
});
