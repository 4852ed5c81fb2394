import type { CustodyAnswer, DiamondV1 } from '@dtp/domain';
import type { TestStack } from '@dtp/testing';
import { verifyCustody, type CustodyKeys } from '@dtp/verify';
import { publicGet } from './passport-support';
import { epcisErrors } from './epcis-support';
import { originStack, searchGet, shipmentJourney, ShipmentJourney } from './origin-support';

/**
 * The chain reaches the mine (DESIGN.md "Provenance": `links`): a manufacturer's rough registered against an accepted
 * shipment links, in its `registered` entry, the latest entries of the shipped diamonds, so the custody answer, its
 * verification, EPCIS and the passport all go back to the producer's registrations.
 */
describe('custody links: a registration against a shipment reaches the producer', () => {
  let stack: TestStack;
  let j: ShipmentJourney;
  let keys: CustodyKeys;
  let answer: CustodyAnswer;

  beforeAll(async () => {
    stack = await originStack();
    j = await shipmentJourney(stack);
    keys = (await (await fetch(`${stack.urls.platform}/.well-known/custody-keys.json`)).json()) as CustodyKeys;
    answer = JSON.parse((await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}/custody`)).text) as CustodyAnswer;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  }, 120_000);

  it("the registration's entry links the shipped diamonds' latest entries (their acceptance), sorted", () => {
    const reg = answer.entries.find((e) => e.entry.diamond_id === j.rough.diamond_id && e.entry.action === 'registered')!;
    expect(reg.entry.prev_entry_hash).toBeNull();
    const accepted = answer.entries.filter((e) => j.shipped.some((d) => d.diamond_id === e.entry.diamond_id) && e.entry.action === 'accepted');
    expect(accepted).toHaveLength(2);
    expect(reg.entry.links).toEqual(accepted.map((e) => e.entry_hash).sort());
    expect(reg.entry.links).toEqual([...reg.entry.links!].sort());
    for (const a of accepted) expect(a.leaf_index).toBeLessThan(reg.leaf_index);
  });

  it("the custody answer holds the shipped diamonds' chains back to the producer's registrations, and it verifies", async () => {
    const byDiamond = (id: string) => answer.entries.filter((e) => e.entry.diamond_id === id).map((e) => e.entry.action);
    for (const d of j.shipped) expect(byDiamond(d.diamond_id)).toEqual(['registered', 'shipped', 'accepted']);
    const roots = answer.entries.filter((e) => e.entry.prev_entry_hash === null && !e.entry.links);
    expect(roots.map((e) => e.entry.actor_participant_id)).toEqual([j.producer.participant_id, j.producer.participant_id]);
    // Entries without links (all but one) have no `links` member at all: their hashes are as before.
    for (const e of answer.entries) if (e.entry.diamond_id !== j.rough.diamond_id || e.entry.action !== 'registered') expect('links' in e.entry).toBe(false);
    const record = JSON.parse((await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}`)).text) as DiamondV1;
    const result = await verifyCustody(answer, { diamondId: j.polished.diamond_id, keys, record });
    expect(result).toMatchObject({ ok: true, record: 'matched' });
    if (result.ok)
      expect(result.chain.filter((s) => s.ancestor).length).toBe(
        answer.entries.length - answer.entries.filter((e) => e.entry.diamond_id === j.polished.diamond_id).length,
      );
  });

  it("a custody answer that drops a shipped diamond's entry, or one whose links were altered, fails verification naming it", async () => {
    const shippedHead = answer.entries.find((e) => e.entry.diamond_id === j.shipped[0].diamond_id && e.entry.action === 'accepted')!;
    const dropped = { ...answer, entries: answer.entries.filter((e) => e !== shippedHead) };
    const r1 = await verifyCustody(dropped, { diamondId: j.polished.diamond_id, keys });
    expect(r1).toMatchObject({ ok: false, failure: { code: 'chain' } });
    if (!r1.ok) expect(r1.failure.message).toContain(`links to shipped diamond entry ${shippedHead.entry_hash}`);
    const altered = structuredClone(answer);
    const reg = altered.entries.find((e) => e.entry.diamond_id === j.rough.diamond_id && e.entry.action === 'registered')!;
    reg.entry.links = reg.entry.links!.slice(1);
    const r2 = await verifyCustody(altered, { diamondId: j.polished.diamond_id, keys });
    expect(r2).toMatchObject({ ok: false, failure: { code: 'entry_hash', leaf_index: reg.leaf_index } });
  });

  it('EPCIS: the registration is a TransformationEvent from the shipped diamonds; the producer registered them', async () => {
    const res = await searchGet(stack, j.reader, `/v1/diamonds/${j.polished.diamond_id}/epcis`);
    expect(res.status).toBe(200);
    expect(epcisErrors(JSON.parse(res.text))).toEqual([]);
    const events = (JSON.parse(res.text) as { epcisBody: { eventList: Record<string, unknown>[] } }).epcisBody.eventList;
    const base = stack.urls.platform!.replace(/\/+$/, '');
    const reg = events.find(
      (e) => e['dtp:action'] === 'registered' && (e.outputEPCList as string[] | undefined)?.[0] === `${base}/id/diamond/${j.rough.diamond_id}`,
    )!;
    expect(reg).toMatchObject({ type: 'TransformationEvent', bizStep: 'commissioning', disposition: 'active' });
    expect([...(reg.inputEPCList as string[])].sort()).toEqual(j.shipped.map((d) => `${base}/id/diamond/${d.diamond_id}`).sort());
    const first = events[0];
    expect(first).toMatchObject({ type: 'ObjectEvent', action: 'ADD', 'dtp:actor': `${base}/id/participant/${j.producer.participant_id}` });
  });

  it("the passport's journey begins at the mine with the producer, then the shipment, then the manufacturer's registration", async () => {
    const html = (await publicGet(stack, `/passport/${j.share.share_id}`)).text;
    const steps = [...html.matchAll(/<li><h3>([^<]+)<\/h3>/g)].map((m) => m[1]);
    expect(steps.slice(0, 7)).toEqual([
      'Mined and registered',
      'Mined and registered',
      'Shipped',
      'Shipped',
      'Received',
      'Received',
      'Registered from a received shipment',
    ]);
    expect(html).toContain(`Registered by ${j.producer.name} (producer). Origin: Orapa Mine`);
    expect(html).toContain('Botswana');
    expect(html).toContain(`Registered by ${j.manufacturer.name} (manufacturer) from the rough diamonds received in the shipment above.`);
  });
});
