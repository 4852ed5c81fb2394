import { randomUUID } from 'node:crypto';
import { GradingDataView, newDiamondId, Topics } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { participantWithToken, TestStack } from '@dtp/testing';
import type { EpcisDocument, EpcisEvent } from '../src/epcis/epcis.mapper';
import { TestCustodyLog } from './custody-support';
import { epcisErrors } from './epcis-support';
import { diamondRecord, eventually, upserted, withDb } from './support';

const BASE = 'https://dtp.example.org';
const diamondUri = (id: string) => `${BASE}/id/diamond/${id}`;
const partyUri = (id: string) => `${BASE}/id/participant/${id}`;

describe('GET /v1/diamonds/{id}/epcis (EPCIS 2.0 export through search)', () => {
  let stack: TestStack;
  let token: string;
  let log: TestCustodyLog;
  const producer = randomUUID();
  const manufacturer = randomUUID();
  const retailer = randomUUID();

  const get = (p: string) => fetch(`${stack.urls.search}${p}`, { headers: { authorization: token } });
  /** Publishes a checkpoint of every entry added so far and waits until search serves it. */
  const checkpoint = async () => {
    const event = await log.checkpoint();
    await stack.transport.publish([{ topic: Topics.PLATFORM_CUSTODY, key: event.key, value: event }]);
    await eventually(async () => {
      const rows = await withDb(
        stack.databases.search!,
        async (c) => (await c.query('SELECT 1 FROM custody_checkpoints WHERE number = $1', [event.revision])).rows,
      );
      return rows.length > 0 ? true : undefined;
    }, `checkpoint ${event.revision}`);
  };
  /** The export of a diamond: 200, JSON-LD, valid against GS1's EPCIS 2.0 JSON Schema. */
  const exported = async (id: string): Promise<EpcisEvent[]> => {
    const res = await get(`/v1/diamonds/${id}/epcis`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    const doc = (await res.json()) as EpcisDocument;
    expect(epcisErrors(doc)).toEqual([]);
    expect(doc['@context']).toEqual(['https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld', { dtp: `${BASE}/ns/epcis#` }]);
    expect(doc).toMatchObject({ type: 'EPCISDocument', schemaVersion: '2.0', creationDate: expect.any(String) });
    expect(Number.isNaN(Date.parse(doc.creationDate))).toBe(false);
    return doc.epcisBody.eventList;
  };
  const summary = (list: EpcisEvent[]) => list.map((e) => [e.type, e.action ?? null, e.bizStep, e.disposition ?? null]);

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'search'], env: { search: { PLATFORM_PUBLIC_URL: `${BASE}/` } } });
    token = (await participantWithToken(stack, 'non_participant', 'search')).token;
    log = await TestCustodyLog.create();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('registration', async () => {
    const id = newDiamondId();
    const reg = log.add(id, 'registered', { actor: producer });
    await checkpoint();
    const list = await exported(id);
    expect(summary(list)).toEqual([['ObjectEvent', 'ADD', 'commissioning', 'active']]);
    expect(list[0]).toMatchObject({
      epcList: [diamondUri(id)],
      'dtp:entryHash': reg.entry_hash,
      'dtp:leafIndex': reg.leaf_index,
      'dtp:actor': partyUri(producer),
    });
  });

  it('shipping and acceptance, shipping and rejection', async () => {
    const accepted = newDiamondId();
    const rejected = newDiamondId();
    for (const [id, answer] of [
      [accepted, 'accepted'],
      [rejected, 'rejected'],
    ] as const) {
      log.add(id, 'registered', { actor: producer });
      log.add(id, 'shipped', { actor: producer, context: { shipment_id: 'shp-1', counterparty_participant_id: manufacturer } });
      log.add(id, answer, { actor: manufacturer, context: { shipment_id: 'shp-1', counterparty_participant_id: producer } });
    }
    await checkpoint();
    const a = await exported(accepted);
    expect(summary(a)).toEqual([
      ['ObjectEvent', 'ADD', 'commissioning', 'active'],
      ['ObjectEvent', 'OBSERVE', 'shipping', 'in_transit'],
      ['ObjectEvent', 'OBSERVE', 'receiving', 'in_progress'],
    ]);
    expect(a[1]).toMatchObject({
      sourceList: [{ type: 'owning_party', source: partyUri(producer) }],
      destinationList: [{ type: 'owning_party', destination: partyUri(manufacturer) }],
    });
    expect(a[2]).toMatchObject({
      sourceList: [{ type: 'owning_party', source: partyUri(producer) }],
      destinationList: [{ type: 'owning_party', destination: partyUri(manufacturer) }],
    });
    const r = await exported(rejected);
    expect(summary(r)[2]).toEqual(['ObjectEvent', 'OBSERVE', 'receiving', 'returned']);
  });

  it("polishing and splitting: TransformationEvents with the children as outputs, in the child's chain back to the mine", async () => {
    const rough = newDiamondId();
    const cuts = [newDiamondId(), newDiamondId()];
    const polished = newDiamondId();
    log.add(rough, 'registered', { actor: producer });
    const split = log.add(rough, 'split', { actor: manufacturer });
    for (const cut of cuts) log.add(cut, 'registered', { actor: manufacturer, parentEntry: split.entry_hash });
    const polish = log.add(cuts[0], 'polished', { actor: manufacturer });
    log.add(polished, 'registered', { actor: manufacturer, parentEntry: polish.entry_hash });
    await checkpoint();

    const list = await exported(polished);
    expect(summary(list)).toEqual([
      ['ObjectEvent', 'ADD', 'commissioning', 'active'], // the rough at the mine
      ['TransformationEvent', null, 'commissioning', 'active'], // split
      ['ObjectEvent', 'ADD', 'commissioning', 'active'], // the cut
      ['TransformationEvent', null, 'commissioning', 'active'], // polish
      ['ObjectEvent', 'ADD', 'commissioning', 'active'], // the polished stone
    ]);
    expect(list[1]).toMatchObject({ inputEPCList: [diamondUri(rough)], outputEPCList: cuts.map(diamondUri) });
    expect(list[3]).toMatchObject({ inputEPCList: [diamondUri(cuts[0])], outputEPCList: [diamondUri(polished)] });
    // The other cut's export has the split too, and not the polish of its sibling.
    const sibling = await exported(cuts[1]);
    expect(sibling.map((e) => e['dtp:action'])).toEqual(['registered', 'split', 'registered']);
  });

  it('destruction and deletion', async () => {
    const destroyed = newDiamondId();
    const deleted = newDiamondId();
    log.add(destroyed, 'registered', { actor: producer });
    log.add(destroyed, 'destroyed', { actor: manufacturer });
    log.add(deleted, 'registered', { actor: producer });
    log.add(deleted, 'deleted', { actor: producer, record: { diamond_id: deleted } });
    await checkpoint();
    expect(summary(await exported(destroyed))[1]).toEqual(['ObjectEvent', 'DELETE', 'destroying', 'destroyed']);
    expect(summary(await exported(deleted))[1]).toEqual(['ObjectEvent', 'DELETE', 'decommissioning', 'inactive']);
  });

  it('grading: the active grading of the record search holds, under the dtp namespace; other changes OBSERVE other', async () => {
    const grading: GradingDataView = {
      id: randomUUID(),
      is_active: true,
      is_selectable: true,
      source: 'gis',
      grading_lab: 'GIA',
      carats: '1.01',
      colour: 'G',
      clarity: 'VS1',
      cut_grade: 'EX',
      grader_report_number: 'R-2141438172',
      crown_angle: null,
    };
    const record = diamondRecord({ current_stage: 'polished', lifecycle_state: 'polished', grading: [grading] });
    await stack.transport.publish([{ topic: Topics.PLATFORM_DIAMONDS, key: record.diamond_id, value: upserted(record, 1) }]);
    await eventually(async () => ((await get(`/v1/diamonds/${record.diamond_id}`)).status === 200 ? true : undefined), 'record visible');
    const id = record.diamond_id;
    log.add(id, 'registered', { actor: manufacturer });
    log.add(id, 'file_attached', { actor: manufacturer });
    log.add(id, 'grading_selected', { actor: manufacturer });
    log.add(id, 'shipped', { actor: manufacturer, context: { counterparty_participant_id: retailer } });
    log.add(id, 'accepted', { actor: retailer, context: { counterparty_participant_id: manufacturer } });
    log.add(id, 'unlocked', { actor: retailer });
    log.add(id, 'record_updated', { actor: null });
    await checkpoint();
    const list = await exported(id);
    expect(list.map((e) => [e['dtp:action'], e.bizStep])).toEqual([
      ['registered', 'commissioning'],
      ['file_attached', 'other'],
      ['grading_selected', 'inspecting'],
      ['shipped', 'shipping'],
      ['accepted', 'receiving'],
      ['unlocked', 'other'],
      ['record_updated', 'other'],
    ]);
    expect(list[2]).toMatchObject({
      type: 'ObjectEvent',
      action: 'OBSERVE',
      'dtp:grading': {
        'dtp:grading_lab': 'GIA',
        'dtp:carats': '1.01',
        'dtp:colour': 'G',
        'dtp:clarity': 'VS1',
        'dtp:cut_grade': 'EX',
        'dtp:grader_report_number': 'R-2141438172',
        'dtp:source': 'gis',
      },
    });
    expect(list[2]['dtp:grading']).not.toHaveProperty('dtp:crown_angle');
    expect(list[6]).not.toHaveProperty('dtp:actor');
  });

  it('404 `{message}` for a diamond without custody entries; 401 without a token', async () => {
    const res = await get(`/v1/diamonds/${newDiamondId()}/epcis`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: expect.stringContaining('no custody entries') });
    expect((await fetch(`${stack.urls.search}/v1/diamonds/${newDiamondId()}/epcis`)).status).toBe(401);
  });
});
