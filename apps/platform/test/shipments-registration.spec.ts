import type { DiamondV1 } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, JsonResponse, PlatformFixture, pid, register, roughBody, startPlatform } from './helpers';
import { decide, knownParticipant, polishedDiamond, roughShipment, ship } from './shipments-helpers';

const CREATE = '/diamonds/rough/create';

interface Refusal {
  message: string;
  reason: string;
  [k: string]: unknown;
}

describe('registration against an accepted rough shipment (box_id = shipment id)', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let maker: ParticipantWithToken;

  const registerAgainst = (who: ParticipantWithToken, shipmentId: string, carats: number | string, extra: Record<string, unknown> = {}) =>
    call<DiamondV1 | Refusal>(f, 'POST', CREATE, who.token, roughBody({ box_id: shipmentId, rough: { carats }, ...extra }));
  const counters = async (shipmentId: string) =>
    (
      await f.db.query<{ registered_count: number; registered_carats: string }>(
        `SELECT registered_count, registered_carats::text FROM shipments WHERE shipment_id = $1`,
        [shipmentId],
      )
    ).rows[0];
  const registeredAgainst = async (shipmentId: string) =>
    (await f.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM diamonds WHERE box_scope = $1`, [shipmentId])).rows[0].n;

  /** A rough shipment from the producer to the maker, accepted. */
  async function accepted(carats: (number | string)[]) {
    const { shipment, diamonds } = await roughShipment(f, producer, maker, carats);
    const res = await decide(
      f,
      maker,
      shipment.id,
      'accept',
      diamonds.map((d) => d.diamond_id),
    );
    expect(res.status).toBe(200);
    return { shipment, diamonds };
  }

  beforeAll(async () => {
    f = await startPlatform();
    producer = await knownParticipant(f, 'producer', { name: 'Box Mining', provenance: { name: 'Letseng', type: 'mine', country_code: 'LS' } });
    maker = await knownParticipant(f, 'manufacturer');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('is refused (409) before acceptance, after rejection, for anyone but the recipient, and against a polished shipment', async () => {
    const { shipment, diamonds } = await roughShipment(f, producer, maker, [2]);
    const pending = await registerAgainst(maker, shipment.id, 1);
    expect(pending).toMatchObject({ status: 409, body: { reason: 'shipment_not_registrable', message: expect.stringContaining('not been accepted yet') } });
    expect(await registerAgainst(producer, shipment.id, 1)).toMatchObject({ status: 409, body: { message: expect.stringContaining('only its recipient') } });

    expect((await decide(f, maker, shipment.id, 'reject', [diamonds[0].diamond_id])).status).toBe(200);
    expect(await registerAgainst(maker, shipment.id, 1)).toMatchObject({ status: 409, body: { message: expect.stringContaining('rejected') } });

    const accepted2 = await accepted([1]);
    const stranger = await knownParticipant(f, 'manufacturer');
    expect(await registerAgainst(stranger, accepted2.shipment.id, 1)).toMatchObject({
      status: 409,
      body: { reason: 'shipment_not_registrable', message: expect.stringContaining('only its recipient') },
    });
    const otherProducer = await knownParticipant(f, 'producer');
    expect((await registerAgainst(otherProducer, accepted2.shipment.id, 1)).status).toBe(409);

    const polished = await ship(f, maker, stranger.participant_id, 'polished', [(await polishedDiamond(f, maker)).diamond_id]);
    expect((await decide(f, stranger, polished.id, 'accept', [polished.diamonds[0].diamond_id])).status).toBe(200);
    expect(await registerAgainst(stranger, polished.id, 1)).toMatchObject({ status: 409, body: { message: expect.stringContaining('rough shipments only') } });
    // Retailers cannot register at all.
    const retailer = await knownParticipant(f, 'retailer');
    expect((await registerAgainst(retailer, polished.id, 1)).status).toBe(403);
    for (const s of [shipment.id, accepted2.shipment.id, polished.id]) expect(await registeredAgainst(s)).toBe(0);
  });

  it("registers up to the shipment's diamond count and weight (+0.01 ct per diamond); past either limit: 409 naming it", async () => {
    const { shipment, diamonds } = await accepted(['1.00', '2.00', '0.99']); // 3.99 ct shipped: limit 3.99 + 0.03 = 4.02 ct
    const a = await registerAgainst(maker, shipment.id, '2.50', { participant_id: 'STONE-1' });
    expect(a.status).toBe(200);
    const d = a.body as DiamondV1;
    // Provenance and producer are inherited from the shipped diamonds; the box is the shipment.
    expect(d).toMatchObject({
      box_id: shipment.id,
      producer_uuid: producer.participant_id,
      provenance: diamonds[0].provenance,
      lifecycle_state: 'rough',
      possession_state: 'held',
      unlock_status: 'locked',
      rough: { carats: '2.50' },
    });
    expect(diamonds[0].provenance).toMatchObject({ provenance_name: 'Letseng', is_locked: true });
    const row = (await f.db.query(`SELECT uploader_id, holder_id, box_scope FROM diamonds WHERE diamond_id = $1`, [d.diamond_id])).rows[0];
    expect(row).toEqual({ uploader_id: maker.participant_id, holder_id: maker.participant_id, box_scope: shipment.id });

    // A duplicate participant_id in the shipment is refused and reserves nothing.
    expect(await registerAgainst(maker, shipment.id, '0.01', { participant_id: 'STONE-1' })).toMatchObject({
      status: 409,
      body: { reason: 'diamond_not_unique' },
    });
    expect(await counters(shipment.id)).toEqual({ registered_count: 1, registered_carats: '2.50' });

    // Weight: 2.50 + 1.53 = 4.03 > 4.02.
    const heavy = await registerAgainst(maker, shipment.id, '1.53');
    expect(heavy).toMatchObject({ status: 409, body: { reason: 'shipment_weight_exceeded', limit_carats: '4.02', registered_carats: '2.5' } });
    expect((heavy.body as Refusal).message).toContain('4.02 ct');
    expect((heavy.body as Refusal).message).toContain('4.03 ct');
    // Exactly at the limit passes (decimal arithmetic: 2.50 + 1.52 = 4.02).
    expect((await registerAgainst(maker, shipment.id, '1.52')).status).toBe(200);
    expect(await counters(shipment.id)).toEqual({ registered_count: 2, registered_carats: '4.02' });
    // Count: the third diamond fits by count but not by weight; with weight to spare the fourth fails by count.
    expect((await registerAgainst(maker, shipment.id, 0.1)).status).toBe(409);
    const { shipment: s2 } = await accepted([1, 1]);
    expect((await registerAgainst(maker, s2.id, 0.5)).status).toBe(200);
    expect((await registerAgainst(maker, s2.id, 0.5)).status).toBe(200);
    const third = await registerAgainst(maker, s2.id, 0.1);
    expect(third).toMatchObject({ status: 409, body: { reason: 'shipment_count_exceeded', limit_diamonds: 2, registered_diamonds: 2 } });
    expect((third.body as Refusal).message).toContain('holds 2 diamond(s)');
    // The same participant_id in the caller's own box is a different box: fine.
    expect((await call(f, 'POST', CREATE, maker.token, roughBody({ participant_id: 'STONE-1' }))).status).toBe(200);
  });

  it('gives the place back when a registered diamond is deleted (a corrected one can be registered again)', async () => {
    const { shipment } = await accepted([1]);
    const first = (await registerAgainst(maker, shipment.id, 1)).body as DiamondV1;
    expect((await registerAgainst(maker, shipment.id, 0.5)).status).toBe(409);
    const del = await call<{ results: { status: string }[] }>(f, 'POST', '/bulk/diamonds/delete', maker.token, {
      diamonds: [{ diamond_id: first.diamond_id }],
    });
    expect(del.body.results[0].status).toBe('success');
    expect(await counters(shipment.id)).toEqual({ registered_count: 0, registered_carats: '0' });
    expect((await registerAgainst(maker, shipment.id, '1.01')).status).toBe(200);
  });

  it('concurrent registrations against one shipment never pass its count or weight', async () => {
    const { shipment } = await accepted([1, 1, 1, 1, 1]); // 5 diamonds, limit 5.05 ct
    const byCount = await Promise.all(Array.from({ length: 16 }, () => registerAgainst(maker, shipment.id, '0.5', { participant_id: pid('par') })));
    expect(byCount.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = byCount.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(11);
    for (const r of refused) expect(r).toMatchObject({ status: 409, body: { reason: 'shipment_count_exceeded' } });
    expect(await counters(shipment.id)).toEqual({ registered_count: 5, registered_carats: '2.5' });
    expect(await registeredAgainst(shipment.id)).toBe(5);

    const { shipment: s2 } = await accepted([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]); // 10 diamonds, limit 10.10 ct
    const byWeight: JsonResponse<DiamondV1 | Refusal>[] = await Promise.all(
      Array.from({ length: 12 }, () => registerAgainst(maker, s2.id, '3', { participant_id: pid('par') })),
    );
    expect(byWeight.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of byWeight.filter((x) => x.status !== 200)) expect(r).toMatchObject({ status: 409, body: { reason: 'shipment_weight_exceeded' } });
    expect(await counters(s2.id)).toEqual({ registered_count: 3, registered_carats: '9' });
    expect(await registeredAgainst(s2.id)).toBe(3);
  });

  it("leaves a box_id that is not a shipment id to the caller's own box, even one that looks like an id", async () => {
    const d = await register(f, maker, { box_id: '01hzzzzzzzzzzzzzzzzzzzzzzz' });
    expect(d.box_id).toBe('01hzzzzzzzzzzzzzzzzzzzzzzz');
    expect(d.producer_uuid).toBe(maker.participant_id);
  });

  it("links its `registered` entry to the shipped diamonds' latest entries (sorted); an own-box registration has no links", async () => {
    const { shipment, diamonds } = await accepted(['1.00', '2.00']);
    const own = await register(f, maker);
    const res = await registerAgainst(maker, shipment.id, '1.50', { participant_id: 'LINKED-1' });
    expect(res.status).toBe(200);
    const entry = async (id: string) =>
      (
        await f.db.query<{ prev_entry_hash: string | null; links: string[] | null; entry_hash: string }>(
          `SELECT prev_entry_hash, links, entry_hash FROM custody_entries WHERE diamond_id = $1 ORDER BY seq`,
          [id],
        )
      ).rows;
    const heads = (
      await f.db.query<{ custody_head: string }>(`SELECT custody_head FROM diamonds WHERE diamond_id = ANY($1::text[])`, [diamonds.map((d) => d.diamond_id)])
    ).rows.map((r) => r.custody_head);
    const [reg] = await entry((res.body as DiamondV1).diamond_id);
    expect(reg.prev_entry_hash).toBeNull();
    expect(reg.links).toEqual([...heads].sort());
    const shippedEntries = (await Promise.all(diamonds.map((d) => entry(d.diamond_id)))).map((rows) => rows.at(-1)!.entry_hash);
    expect([...shippedEntries].sort()).toEqual(reg.links);
    expect((await entry(own.diamond_id))[0].links).toBeNull();
  });
});
