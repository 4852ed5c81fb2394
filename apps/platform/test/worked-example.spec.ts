import { Client } from 'pg';
import type { DiamondV1, InboundShipment, ListEnvelope } from '@dtp/domain';
import { startTestStack } from '@dtp/test-stack';
import { TEST_ADMIN_TOKEN, TEST_AUDIENCES, TestStack } from '@dtp/testing';

/**
 * docs/lifecycle.md "Worked example", step by step through HTTP: a producer's rough diamonds travel to a
 * manufacturer, which registers stones against the shipment, polishes one and ships it to a retailer.
 */
describe('worked example: from the mine to the shop', () => {
  let stack: TestStack;
  let db: Client;
  let auth: string;
  let api: string;

  interface Answer<T = Record<string, unknown>> {
    status: number;
    body: T;
  }
  async function http<T = Record<string, unknown>>(method: string, url: string, token: string | null, body?: unknown): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }
  async function onboard(body: Record<string, unknown>): Promise<{ participant_id: string; token: string }> {
    const created = await http<{ participant_id: string; client_id: string; client_secret: string }>(
      'POST',
      `${auth}/admin/participants`,
      `Bearer ${TEST_ADMIN_TOKEN}`,
      body,
    );
    expect(created.status).toBe(201);
    const { client_id, client_secret } = created.body;
    const tok = await http<{ access_token: string }>('POST', `${auth}/oauth/token`, null, {
      grant_type: 'client_credentials',
      client_id,
      client_secret,
      audience: TEST_AUDIENCES.platform,
    });
    expect(tok.status).toBe(200);
    // Platform learns about other participants from auth.participants.v1 (within moments).
    const until = Date.now() + 10_000;
    while ((await db.query(`SELECT 1 FROM participants WHERE participant_id = $1`, [created.body.participant_id])).rowCount === 0) {
      if (Date.now() > until) throw new Error('platform never learned about the participant');
      await new Promise((r) => setTimeout(r, 20));
    }
    return { participant_id: created.body.participant_id, token: tok.body.access_token };
  }

  beforeAll(async () => {
    stack = await startTestStack({ services: ['auth', 'platform'] });
    auth = stack.urls.auth!;
    api = stack.urls.platform!;
    db = new Client({ connectionString: stack.databases.platform });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await stack?.close();
  });

  it('walks registration, rough shipment, registration against it, polishing, polished shipment, acceptance by a retailer', async () => {
    // 1. Onboarding.
    const producer = await onboard({ name: 'Karowe Mining', role: 'producer', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } });
    const maker = await onboard({ name: 'Antwerp Cutting', role: 'manufacturer' });
    const retailer = await onboard({ name: 'Bond Street Jewels', role: 'retailer' });

    // 2. The producer registers two rough diamonds from its sight box.
    const r1 = await http<DiamondV1>('POST', `${api}/diamonds/rough/create`, producer.token, {
      box_id: 'SIGHT-2024-05',
      participant_id: 'KAR-0001',
      participant_timestamp: '2024-05-02T08:00:00Z',
      sight_no: 5,
      sight_year: 2024,
      rough: { carats: '2.40', colour: 'G', model: 'Octahedron' },
    });
    const r2 = await http<DiamondV1>('POST', `${api}/diamonds/rough/create`, producer.token, {
      box_id: 'SIGHT-2024-05',
      participant_id: 'KAR-0002',
      participant_timestamp: '2024-05-02T08:00:00Z',
      sight_no: 5,
      sight_year: 2024,
      rough: { carats: '1.10', colour: 'H' },
    });
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect(r1.body.provenance).toMatchObject({ provenance_name: 'Karowe', provenance_type: 'mine', is_locked: true });
    const ids = [r1.body.diamond_id, r2.body.diamond_id];

    // 3. Shipped to the manufacturer; shipping again is refused.
    const out = await http<InboundShipment>('POST', `${api}/v2/transfer/out`, producer.token, {
      recipient_participant_id: maker.participant_id,
      name: 'May sight',
      shipment_type: 'rough',
      diamond_ids: ids,
    });
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({
      status: 'action_required',
      total_diamonds: 2,
      diamonds: ids.map((diamond_id) => ({ diamond_id, transfer_state: 'transfer_in_pending' })),
    });
    expect(out.body.diamonds[0].rough).toEqual({
      carats: '2.40',
      colour: 'G',
      model: 'Octahedron',
      quality: null,
      stress: null,
      box_id: 'SIGHT-2024-05',
      sight_year: 2024,
      sight_number: 5,
    });
    const shipment = out.body.id;
    const again = await http('POST', `${api}/v2/transfer/out`, producer.token, {
      recipient_participant_id: maker.participant_id,
      name: 'again',
      shipment_type: 'rough',
      diamond_ids: [ids[0]],
    });
    expect(again).toMatchObject({ status: 409, body: { reason: 'in_transit', diamond_ids: [ids[0]] } });

    // 4. The manufacturer's inbox; a partial accept of a rough shipment is refused; the whole one is accepted.
    const inbox = await http<ListEnvelope<InboundShipment>>('GET', `${api}/v2/shipment/inbound?shipment_type=rough`, maker.token);
    expect(inbox.body).toMatchObject({ total: 1, pages: 1, next: null, previous: null, results: [{ id: shipment }] });
    expect(await http('POST', `${api}/v2/transfer/in/${shipment}/accept`, maker.token, { diamond_ids: [ids[0]] })).toMatchObject({
      status: 409,
      body: { reason: 'rough_shipment_all_or_nothing', missing_diamond_ids: [ids[1]] },
    });
    const accepted = await http<InboundShipment>('POST', `${api}/v2/transfer/in/${shipment}/accept`, maker.token, { diamond_ids: ids });
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('completed');
    expect(accepted.body.diamonds.map((d) => d.transfer_state)).toEqual(['transfer_in_confirmed', 'transfer_in_confirmed']);
    const held = await db.query(`SELECT DISTINCT holder_id, possession_state, unlock_status FROM diamonds WHERE diamond_id = ANY($1)`, [ids]);
    expect(held.rows).toEqual([{ holder_id: maker.participant_id, possession_state: 'held', unlock_status: 'unlocked' }]);

    // 5. Stones registered against the shipment inherit the producer's provenance; the weight limit holds.
    const stone = await http<DiamondV1>('POST', `${api}/diamonds/rough/create`, maker.token, {
      box_id: shipment,
      participant_id: 'AC-0001',
      participant_timestamp: '2024-05-06T09:00:00Z',
      rough: { carats: '2.41', colour: 'G' },
    });
    expect(stone.status).toBe(200);
    expect(stone.body).toMatchObject({ box_id: shipment, producer_uuid: producer.participant_id, provenance: { provenance_name: 'Karowe' } });
    const tooHeavy = await http('POST', `${api}/diamonds/rough/create`, maker.token, {
      box_id: shipment,
      participant_id: 'AC-0002',
      participant_timestamp: '2024-05-06T09:00:00Z',
      rough: { carats: '1.20' },
    });
    expect(tooHeavy).toMatchObject({ status: 409, body: { reason: 'shipment_weight_exceeded', limit_carats: '3.52' } });
    const second = await http<DiamondV1>('POST', `${api}/diamonds/rough/create`, maker.token, {
      box_id: shipment,
      participant_id: 'AC-0002',
      participant_timestamp: '2024-05-06T09:00:00Z',
      rough: { carats: '1.10' },
    });
    expect(second).toMatchObject({ status: 200, body: { participant_id: 'AC-0002', rough: { carats: '1.10' } } });
    const third = await http('POST', `${api}/diamonds/rough/create`, maker.token, {
      box_id: shipment,
      participant_id: 'AC-0003',
      participant_timestamp: '2024-05-06T09:00:00Z',
      rough: { carats: '0.01' },
    });
    expect(third).toMatchObject({ status: 409, body: { reason: 'shipment_count_exceeded', limit_diamonds: 2 } });

    // 6. Polishing the first stone; polishing it again is an illegal move.
    const polished = await http<DiamondV1>('POST', `${api}/diamonds/polished/create`, maker.token, {
      parent_diamond_id: stone.body.diamond_id,
      participant_id: 'AC-0001-P',
      participant_timestamp: '2024-05-20T15:00:00Z',
      polished: { carats: '0.91', shape: 'Round', colour: 'G', clarity: 'VS1', cut_grade: 'EX' },
    });
    expect(polished.status).toBe(200);
    expect(polished.body).toMatchObject({
      lifecycle_state: 'polished',
      diamond_parent_id: stone.body.diamond_id,
      participant_parent_id: 'AC-0001',
      polished: { carats: '0.91' },
      rough: { carats: '2.41' },
      provenance: { provenance_name: 'Karowe' },
      producer_uuid: producer.participant_id,
    });
    expect(
      await http('POST', `${api}/diamonds/polished/create`, maker.token, {
        parent_diamond_id: stone.body.diamond_id,
        participant_id: 'AC-0001-Q',
        participant_timestamp: '2024-05-20T15:00:00Z',
        polished: { carats: '0.5', shape: 'Oval' },
      }),
    ).toMatchObject({ status: 409, body: { reason: 'illegal_transition', from: 'polished', to: 'polished' } });

    // 7. Shipped to the retailer, who accepts it.
    const pOut = await http<InboundShipment>('POST', `${api}/v2/transfer/out`, maker.token, {
      recipient_participant_id: retailer.participant_id,
      name: 'Order 4711',
      shipment_type: 'polished',
      diamond_ids: [polished.body.diamond_id],
    });
    expect(pOut.status).toBe(201);
    const rInbox = await http<ListEnvelope<InboundShipment>>('GET', `${api}/v2/shipment/inbound`, retailer.token);
    expect(rInbox.body.results).toHaveLength(1);
    expect(rInbox.body.results[0]).toMatchObject({
      id: pOut.body.id,
      shipment_type: 'polished',
      diamonds: [{ polished: { carats: '0.91', clarity: 'VS1', colour: 'G', cut_grade: 'EX', shape: 'Round' }, lifecycle_state: 'polished' }],
    });
    const pAccepted = await http<InboundShipment>('POST', `${api}/v2/transfer/in/${pOut.body.id}/accept`, retailer.token, {
      diamond_ids: [polished.body.diamond_id],
    });
    expect(pAccepted).toMatchObject({ status: 200, body: { status: 'completed', diamonds: [{ transfer_state: 'transfer_in_confirmed' }] } });

    // 8. The retailer holds it: the holder's routes answer it, and no longer the manufacturer.
    expect((await http('GET', `${api}/diamonds/${polished.body.diamond_id}/graded-measurements`, retailer.token)).status).toBe(200);
    expect((await http('GET', `${api}/diamonds/${polished.body.diamond_id}/graded-measurements`, maker.token)).status).toBe(403);
    const finalRow = await db.query(
      `SELECT holder_id, possession_state, unlock_status, lifecycle_state, diamond_parent_id FROM diamonds WHERE diamond_id = $1`,
      [polished.body.diamond_id],
    );
    expect(finalRow.rows[0]).toEqual({
      holder_id: retailer.participant_id,
      possession_state: 'held',
      unlock_status: 'unlocked',
      lifecycle_state: 'polished',
      diamond_parent_id: stone.body.diamond_id,
    });
    // The published record (what search shows) says the same.
    const last = await db.query<{ payload: { data: DiamondV1 } }>(
      `SELECT payload FROM outbox WHERE key = $1 AND event_type = 'diamond.upserted' ORDER BY id DESC LIMIT 1`,
      [polished.body.diamond_id],
    );
    expect(last.rows[0].payload.data).toMatchObject({ possession_state: 'held', unlock_status: 'unlocked', lifecycle_state: 'polished' });
  });
});
