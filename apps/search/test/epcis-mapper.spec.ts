import { randomUUID } from 'node:crypto';
import { GradingDataView, newDiamondId } from '@dtp/domain';
import { EPCIS_CONTEXT, EpcisDocument, EpcisEvent, toEpcisDocument } from '../src/epcis/epcis.mapper';
import { TestCustodyLog } from './custody-support';
import { epcisErrors } from './epcis-support';

const BASE = 'https://platform.example.com/';
const CREATED = '2024-06-01T12:00:00.000Z';
const d = (id: string) => `https://platform.example.com/id/diamond/${id}`;
const p = (id: string) => `https://platform.example.com/id/participant/${id}`;

/** Maps and checks against GS1's schema (every document of these tests passes it). */
function exported(input: Omit<Parameters<typeof toEpcisDocument>[0], 'base' | 'creationDate'>): EpcisDocument {
  const doc = toEpcisDocument({ base: BASE, creationDate: CREATED, ...input });
  expect(epcisErrors(doc)).toEqual([]);
  return doc;
}

const events = (doc: EpcisDocument) => doc.epcisBody.eventList;

describe('EPCIS 2.0 mapping of custody entries (pure)', () => {
  let log: TestCustodyLog;
  const producer = randomUUID();
  const manufacturer = randomUUID();

  beforeEach(async () => {
    log = await TestCustodyLog.create();
  });

  it('registration: the document frame and an ObjectEvent ADD commissioning/active with the entry hash', () => {
    const id = newDiamondId();
    const reg = log.add(id, 'registered', { actor: producer });
    const doc = exported({ entries: [reg] });
    expect(doc).toEqual({
      '@context': [EPCIS_CONTEXT, { dtp: 'https://platform.example.com/ns/epcis#' }],
      type: 'EPCISDocument',
      schemaVersion: '2.0',
      creationDate: CREATED,
      epcisBody: {
        eventList: [
          {
            type: 'ObjectEvent',
            eventTime: reg.entry.occurred_at,
            eventTimeZoneOffset: '+00:00',
            eventID: `https://platform.example.com/id/custody-entry/${reg.entry_hash}`,
            action: 'ADD',
            epcList: [d(id)],
            bizStep: 'commissioning',
            disposition: 'active',
            'dtp:entryHash': reg.entry_hash,
            'dtp:leafIndex': 0,
            'dtp:action': 'registered',
            'dtp:recordSha256': reg.entry.record_sha256,
            'dtp:actor': p(producer),
          },
        ],
      },
    });
  });

  it('shipping and acceptance: shipping/in_transit then receiving/in_progress, owning parties sender -> recipient', () => {
    const id = newDiamondId();
    const shipment = randomUUID();
    const entries = [
      log.add(id, 'registered', { actor: producer }),
      log.add(id, 'shipped', { actor: producer, context: { shipment_id: shipment, counterparty_participant_id: manufacturer } }),
      log.add(id, 'accepted', { actor: manufacturer, context: { shipment_id: shipment, counterparty_participant_id: producer } }),
    ];
    const [, shipped, accepted] = events(exported({ entries }));
    expect(shipped).toMatchObject({
      type: 'ObjectEvent',
      action: 'OBSERVE',
      bizStep: 'shipping',
      disposition: 'in_transit',
      sourceList: [{ type: 'owning_party', source: p(producer) }],
      destinationList: [{ type: 'owning_party', destination: p(manufacturer) }],
      'dtp:shipmentId': shipment,
      'dtp:leafIndex': 1,
    });
    expect(accepted).toMatchObject({
      action: 'OBSERVE',
      bizStep: 'receiving',
      disposition: 'in_progress',
      sourceList: [{ type: 'owning_party', source: p(producer) }],
      destinationList: [{ type: 'owning_party', destination: p(manufacturer) }],
      'dtp:entryHash': entries[2].entry_hash,
    });
  });

  it('shipping and rejection: receiving/returned, the stones going back from the recipient to the sender', () => {
    const id = newDiamondId();
    const entries = [
      log.add(id, 'registered', { actor: producer }),
      log.add(id, 'shipped', { actor: producer, context: { counterparty_participant_id: manufacturer } }),
      log.add(id, 'rejected', { actor: manufacturer, context: { counterparty_participant_id: producer } }),
    ];
    const rejected = events(exported({ entries }))[2];
    expect(rejected).toMatchObject({
      action: 'OBSERVE',
      bizStep: 'receiving',
      disposition: 'returned',
      sourceList: [{ type: 'owning_party', source: p(manufacturer) }],
      destinationList: [{ type: 'owning_party', destination: p(producer) }],
    });
  });

  it('a shipment whose counterparty is unknown has a source and no destination', () => {
    const id = newDiamondId();
    const entries = [log.add(id, 'registered', { actor: producer }), log.add(id, 'shipped', { actor: producer })];
    const shipped = events(exported({ entries }))[1];
    expect(shipped.sourceList).toEqual([{ type: 'owning_party', source: p(producer) }]);
    expect(shipped).not.toHaveProperty('destinationList');
  });

  it('polishing: a TransformationEvent commissioning with the parent as input and the child as output', () => {
    const rough = newDiamondId();
    const polished = newDiamondId();
    const reg = log.add(rough, 'registered', { actor: producer });
    const pol = log.add(rough, 'polished', { actor: manufacturer });
    const child = log.add(polished, 'registered', { actor: manufacturer, parentEntry: pol.entry_hash });
    const list = events(exported({ entries: [reg, pol, child], children: new Map([[pol.entry_hash, [polished]]]) }));
    expect(list.map((e) => e.type)).toEqual(['ObjectEvent', 'TransformationEvent', 'ObjectEvent']);
    expect(list[1]).toEqual({
      type: 'TransformationEvent',
      eventTime: pol.entry.occurred_at,
      eventTimeZoneOffset: '+00:00',
      eventID: `https://platform.example.com/id/custody-entry/${pol.entry_hash}`,
      inputEPCList: [d(rough)],
      outputEPCList: [d(polished)],
      transformationID: `https://platform.example.com/id/transformation/${pol.entry_hash}`,
      bizStep: 'commissioning',
      disposition: 'active',
      'dtp:entryHash': pol.entry_hash,
      'dtp:leafIndex': 1,
      'dtp:action': 'polished',
      'dtp:recordSha256': pol.entry.record_sha256,
      'dtp:actor': p(manufacturer),
    });
    expect(list[2]).toMatchObject({ action: 'ADD', epcList: [d(polished)], bizStep: 'commissioning' });
  });

  it('splitting: one TransformationEvent with every cut as an output; without known outputs, the input alone', () => {
    const rough = newDiamondId();
    const cuts = [newDiamondId(), newDiamondId(), newDiamondId()];
    const reg = log.add(rough, 'registered', { actor: producer });
    const split = log.add(rough, 'split', { actor: manufacturer });
    const withOutputs = events(exported({ entries: [reg, split], children: new Map([[split.entry_hash, cuts]]) }))[1] as EpcisEvent;
    expect(withOutputs).toMatchObject({ type: 'TransformationEvent', inputEPCList: [d(rough)], outputEPCList: cuts.map(d), bizStep: 'commissioning' });
    const alone = events(exported({ entries: [reg, split] }))[1];
    expect(alone.inputEPCList).toEqual([d(rough)]);
    expect(alone).not.toHaveProperty('outputEPCList');
  });

  it('destruction: ObjectEvent DELETE destroying/destroyed', () => {
    const id = newDiamondId();
    const entries = [log.add(id, 'registered', { actor: producer }), log.add(id, 'destroyed', { actor: manufacturer })];
    expect(events(exported({ entries }))[1]).toMatchObject({
      type: 'ObjectEvent',
      action: 'DELETE',
      bizStep: 'destroying',
      disposition: 'destroyed',
      epcList: [d(id)],
    });
  });

  it('deletion: ObjectEvent DELETE decommissioning/inactive', () => {
    const id = newDiamondId();
    const entries = [log.add(id, 'registered', { actor: producer }), log.add(id, 'deleted', { actor: producer, record: { diamond_id: id } })];
    expect(events(exported({ entries }))[1]).toMatchObject({ action: 'DELETE', bizStep: 'decommissioning', disposition: 'inactive', 'dtp:action': 'deleted' });
  });

  it('grading: OBSERVE inspecting with the active grading under the dtp namespace (nulls left out); a deselection without data', () => {
    const id = newDiamondId();
    const grading = {
      carats: '1.01',
      colour: 'G',
      clarity: 'VS1',
      cut_grade: 'EX',
      grading_lab: 'GIA',
      grader_report_number: 'R-1',
      crown_angle: null,
      grader_inscription_numbers: ['GIA 1'],
    } as GradingDataView;
    const entries = [
      log.add(id, 'registered', { actor: producer }),
      log.add(id, 'grading_deselected', { actor: producer }),
      log.add(id, 'grading_selected', { actor: producer }),
    ];
    const list = events(exported({ entries, gradings: new Map([[entries[2].entry_hash, grading]]) }));
    expect(list[1]).toMatchObject({ action: 'OBSERVE', bizStep: 'inspecting', 'dtp:action': 'grading_deselected' });
    expect(list[1]).not.toHaveProperty('dtp:grading');
    expect(list[2]).toMatchObject({
      action: 'OBSERVE',
      bizStep: 'inspecting',
      'dtp:grading': {
        'dtp:carats': '1.01',
        'dtp:colour': 'G',
        'dtp:clarity': 'VS1',
        'dtp:cut_grade': 'EX',
        'dtp:grading_lab': 'GIA',
        'dtp:grader_report_number': 'R-1',
        'dtp:grader_inscription_numbers': ['GIA 1'],
      },
    });
    expect(list[2]['dtp:grading']).not.toHaveProperty('dtp:crown_angle');
  });

  it('other changes (file attached, unlocked, record updated by no participant): OBSERVE other; no actor member when there is none', () => {
    const id = newDiamondId();
    const entries = [
      log.add(id, 'registered', { actor: producer }),
      log.add(id, 'file_attached', { actor: producer }),
      log.add(id, 'unlocked', { actor: producer }),
      log.add(id, 'record_updated', { actor: null }),
    ];
    const list = events(exported({ entries }));
    expect(list.slice(1).map((e) => [e.action, e.bizStep, e['dtp:action']])).toEqual([
      ['OBSERVE', 'other', 'file_attached'],
      ['OBSERVE', 'other', 'unlocked'],
      ['OBSERVE', 'other', 'record_updated'],
    ]);
    expect(list[3]).not.toHaveProperty('dtp:actor');
    expect(list.map((e) => e['dtp:leafIndex'])).toEqual([0, 1, 2, 3]);
  });

  it('the schema check can fail: an unknown action or a missing eventTime is refused', () => {
    const id = newDiamondId();
    const doc = toEpcisDocument({ base: BASE, creationDate: CREATED, entries: [log.add(id, 'registered', { actor: producer })] });
    const badAction = structuredClone(doc) as unknown as { epcisBody: { eventList: Record<string, unknown>[] } };
    badAction.epcisBody.eventList[0].action = 'CREATE';
    expect(epcisErrors(badAction).join('\n')).toMatch(/action/);
    const noTime = structuredClone(doc) as unknown as { epcisBody: { eventList: Record<string, unknown>[] } };
    delete noTime.epcisBody.eventList[0].eventTime;
    expect(epcisErrors(noTime).join('\n')).toMatch(/eventTime/);
  });
});
