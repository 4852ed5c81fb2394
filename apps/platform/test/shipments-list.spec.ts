import type { InboundShipment, ListEnvelope } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, PlatformFixture, startPlatform } from './helpers';
import { knownParticipant, polishedDiamond, roughShipment, ship } from './shipments-helpers';

const BASE = 'https://platform.example.test/api';

describe('shipment lists', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let maker: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ PUBLIC_BASE_URL: BASE });
    producer = await knownParticipant(f, 'producer');
    maker = await knownParticipant(f, 'manufacturer');
  });
  afterAll(async () => {
    await f?.close();
  });

  describe('GET /v2/shipment/inbound and /outbound', () => {
    it("lists only the recipient's (inbound) or sender's (outbound) shipments, filtered by type, with absolute page links", async () => {
      const recipient = await knownParticipant(f, 'manufacturer');
      const r1 = (await roughShipment(f, producer, recipient, [1])).shipment;
      const r2 = (await roughShipment(f, producer, recipient, [2])).shipment;
      const r3 = (await roughShipment(f, producer, recipient, [3])).shipment;
      const p = await ship(f, maker, recipient.participant_id, 'polished', [(await polishedDiamond(f, maker)).diamond_id]);

      const all = await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/inbound', recipient.token);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ next: null, previous: null, page: 1, pages: 1, total: 4 });
      expect(all.body.results.map((s) => s.id)).toEqual([r1.id, r2.id, r3.id, p.id]);
      expect(all.body.results[0]).toEqual(r1);

      const rough = await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/inbound?shipment_type=rough&page=2&page_size=1', recipient.token);
      expect(rough.body).toEqual({
        next: `${BASE}/v2/shipment/inbound?shipment_type=rough&page=3&page_size=1`,
        previous: `${BASE}/v2/shipment/inbound?shipment_type=rough&page=1&page_size=1`,
        page: 2,
        pages: 3,
        total: 3,
        results: [r2],
      });
      const polished = await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/inbound?shipment_type=polished', recipient.token);
      expect(polished.body.results.map((s) => s.id)).toEqual([p.id]);
      // Summaries keep the spec's member order (they are stored as jsonb, which does not).
      expect(Object.keys(polished.body.results[0].diamonds[0].polished!)).toEqual(['carats', 'clarity', 'colour', 'cut_grade', 'shape']);
      expect(Object.keys(all.body.results[0].diamonds[0].rough!)).toEqual([
        'carats',
        'colour',
        'model',
        'quality',
        'stress',
        'box_id',
        'sight_year',
        'sight_number',
      ]);
      // Someone else's inbox does not show them; the sender sees them as outbound.
      const other = await knownParticipant(f, 'retailer');
      expect((await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/inbound', other.token)).body).toEqual({
        next: null,
        previous: null,
        page: 1,
        pages: 0,
        total: 0,
        results: [],
      });
      const out = await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/outbound?shipment_type=polished&page_size=100', maker.token);
      expect(out.body.results.map((s) => s.id)).toContain(p.id);
      expect(out.body.results.every((s) => s.shipment_type === 'polished')).toBe(true);
      expect((await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/outbound', recipient.token)).body.total).toBe(0);
    });

    it('answers 422 for bad paging and filters, naming the query parameter', async () => {
      for (const [query, loc] of [
        ['page=0', 'query.page'],
        ['page=abc', 'query.page'],
        ['page=1.5', 'query.page'],
        ['page_size=0', 'query.page_size'],
        ['page_size=101', 'query.page_size'],
        ['shipment_type=cut', 'query.shipment_type'],
        ['page=99999999999999', 'query.page'],
      ] as const) {
        const res = await call<{ detail: { loc: string[] }[] }>(f, 'GET', `/v2/shipment/inbound?${query}`, maker.token);
        expect({ query, status: res.status }).toEqual({ query, status: 422 });
        expect(res.body.detail.map((d) => d.loc.join('.'))).toContain(loc);
      }
      expect((await call(f, 'GET', '/v2/shipment/inbound?page_size=100', maker.token)).status).toBe(200);
      expect((await call(f, 'GET', '/v2/shipment/inbound', null)).status).toBe(401);
    });

    it('pages through 10,000 inbound shipments (page_size 100): each exactly once, in order, ties on created_at broken by id', async () => {
      const inbox = await knownParticipant(f, 'manufacturer');
      // Inserted in bulk by SQL; created_at repeats for runs of 7 shipments so the order must fall back on the id.
      await f.db.query(
        `WITH s AS (
           INSERT INTO shipments (shipment_id, name, shipment_type, status, sender_id, recipient_id, sender_base_url, total_diamonds,
                                  total_carats, producer_uuid, provenance, revision, created_at, updated_at)
           SELECT lpad(to_hex(i), 26, '0'), 'bulk ' || i, CASE WHEN i % 3 = 0 THEN 'polished' ELSE 'rough' END, 'action_required',
                  $1, $2, $3, 1, 1.5, $1, '{}'::jsonb, 1,
                  timestamptz '2024-01-01 00:00:00+00' + ((10000 - i) / 7) * interval '1 second', now()
             FROM generate_series(1, 10000) AS i
           RETURNING shipment_id, created_at
         )
         INSERT INTO shipment_diamonds (shipment_id, diamond_id, position, transfer_state, lifecycle_state, rough, polished, created_at, updated_at)
         SELECT shipment_id, 'd' || shipment_id, 0, 'transfer_in_pending', 'rough',
                '{"carats": "1.5", "colour": null, "model": null, "quality": null, "stress": null, "box_id": "B", "sight_year": null, "sight_number": null}'::jsonb,
                NULL, created_at, created_at
           FROM s`,
        [producer.participant_id, inbox.participant_id, BASE],
      );
      const seen: string[] = [];
      let url: string | null = `${BASE}/v2/shipment/inbound?page=1&page_size=100`;
      let pages = 0;
      while (url) {
        const res: { status: number; body: ListEnvelope<InboundShipment> } = await call<ListEnvelope<InboundShipment>>(
          f,
          'GET',
          url.slice(BASE.length),
          inbox.token,
        );
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ page: pages + 1, pages: 100, total: 10_000 });
        for (const s of res.body.results) {
          expect(s.diamonds).toHaveLength(1);
          expect(s.diamonds[0].diamond_id).toBe(`d${s.id}`);
          seen.push(s.id);
        }
        pages += 1;
        url = res.body.next;
      }
      expect(pages).toBe(100);
      expect(seen).toHaveLength(10_000);
      expect(new Set(seen).size).toBe(10_000);
      const { rows } = await f.db.query<{ shipment_id: string }>(`SELECT shipment_id FROM shipments WHERE recipient_id = $1 ORDER BY created_at, shipment_id`, [
        inbox.participant_id,
      ]);
      expect(seen).toEqual(rows.map((r) => r.shipment_id));
      // The filter pages the same way.
      const polished = await call<ListEnvelope<InboundShipment>>(f, 'GET', '/v2/shipment/inbound?shipment_type=polished&page=34&page_size=100', inbox.token);
      expect(polished.body).toMatchObject({
        total: 3333,
        pages: 34,
        next: null,
        previous: `${BASE}/v2/shipment/inbound?shipment_type=polished&page=33&page_size=100`,
      });
      expect(polished.body.results).toHaveLength(33);
    });
  });
});
