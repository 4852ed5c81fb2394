import type { DiamondV1, IndexedCustodyEntry } from '@dtp/domain';
import { esc, SCRIPT } from './passport-page';
import { journeyFromEntries, originOf, passportView, who } from './passport.view';
import type { PublicParticipant } from './passport.repository';

const P = (name: string, role: string): PublicParticipant => ({ name, role, provenance_name: null, provenance_country: null });
const participants = new Map([
  ['p-1', P('Kalahari Mining', 'producer')],
  ['m-1', P('Antwerp <Cutters>', 'manufacturer')],
  ['r-1', P('Bright Jewels', 'retailer')],
]);

const record = (over: Partial<DiamondV1>): DiamondV1 =>
  ({
    diamond_id: 'd-rough',
    lifecycle_state: 'rough',
    participant_timestamp: '2024-03-01T10:00:00Z',
    system_timestamp: '2024-03-01T10:00:00.000Z',
    polished: {},
    rough: { carats: '2.50' },
    producer_uuid: 'p-1',
    provenance: { provenance_name: 'Karowe Mine', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
    ...over,
  }) as DiamondV1;

const entry = (diamond_id: string, action: IndexedCustodyEntry['entry']['action'], actor: string | null, counterparty?: string): IndexedCustodyEntry => ({
  entry: {
    diamond_id,
    version_id: 'v',
    action,
    actor_participant_id: actor,
    occurred_at: '2024-03-02T00:00:00.000Z',
    record_sha256: '0'.repeat(64),
    prev_entry_hash: null,
  },
  entry_hash: '1'.repeat(64),
  leaf_index: 0,
  ...(counterparty ? { context: { counterparty_participant_id: counterparty } } : {}),
});

describe('passport view', () => {
  it('names participants by public name and role, and never by id', () => {
    expect(who(participants, 'r-1')).toBe('Bright Jewels (retailer)');
    expect(who(participants, 'unknown-id')).toBe('a registered participant');
    expect(who(participants, null)).toBe('a registered participant');
  });

  it('describes the origin from the provenance (country only when the record says it is available)', () => {
    expect(originOf(record({}))).toBe('Karowe Mine, a mine in Botswana');
    expect(
      originOf(
        record({
          provenance: { provenance_name: 'Karowe Mine', provenance_type: 'mine', is_locked: true, is_country_code_available: false, country_code: 'BW' },
        }),
      ),
    ).toBe('Karowe Mine, a mine');
    expect(originOf(record({ provenance: { provenance_name: null, provenance_type: null, is_locked: false, is_country_code_available: false } }))).toBeNull();
  });

  it("turns custody entries into steps; a cut stone's own first entry is left to its parent's polishing", () => {
    const rough = record({});
    const polished = record({ diamond_id: 'd-pol', diamond_parent_id: 'd-rough', lifecycle_state: 'polished' });
    const steps = journeyFromEntries(
      [
        entry('d-rough', 'registered', 'p-1'),
        entry('d-rough', 'shipped', 'p-1', 'm-1'),
        entry('d-rough', 'accepted', 'm-1', 'p-1'),
        entry('d-rough', 'polished', 'm-1'),
        entry('d-pol', 'registered', 'm-1'),
        entry('d-pol', 'record_updated', null),
      ],
      new Map([
        ['d-rough', rough],
        ['d-pol', polished],
      ]),
      participants,
    );
    expect(steps.map((s) => s.title)).toEqual(['Mined and registered', 'Shipped', 'Received', 'Cut and polished', 'Record updated']);
    expect(steps[0].detail).toBe('Registered by Kalahari Mining (producer). Origin: Karowe Mine, a mine in Botswana.');
    expect(steps[1].detail).toBe('Sent by Kalahari Mining (producer) to Antwerp <Cutters> (manufacturer).');
    const text = JSON.stringify(steps);
    for (const id of ['p-1', 'm-1', 'd-rough', 'd-pol']) expect(text.includes(id)).toBe(false);
  });

  it('falls back to the records while the log has no checkpoint, and reports the GIS status in words', () => {
    const v = passportView({
      record: record({ gis_status: 'eligible' }),
      ancestors: [],
      custody: null,
      participants,
      photos: [],
      hiddenPhotos: 0,
      shareUrl: 'https://s/passport/x',
    });
    expect(v.journeyFromLog).toBe(false);
    expect(v.journey.map((s) => s.title)).toEqual(['Mined and registered']);
    expect(v.gis.status).toBe('Verified');
    expect(v.title).toBe('Rough diamond passport');
  });

  it('has a badge script that parses (a syntax error would leave the badge at "Checking...")', () => {
    expect(() => new Function(SCRIPT)).not.toThrow();
  });

  it('escapes HTML', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
