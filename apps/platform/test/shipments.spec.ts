import { Topics, validateEnvelope } from '@dtp/domain';
import type { GradedMeasurementsResponse, GradingDataView } from '@dtp/domain';
import { onboard, ParticipantWithToken } from '@dtp/testing';
import { call, outboxCount, outboxRows, participantKnown, PlatformFixture, register, startPlatform } from './helpers';
import { decide, diamondState, knownParticipant, latestRecord, polishedDiamond, roughShipment, ship, SHIPMENT_TS, transferOut } from './shipments-helpers';

const BASE = 'https://platform.example.test/api';

describe('shipments and transfers', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let maker: ParticipantWithToken;
  let retailer: ParticipantWithToken;

  beforeAll(async () => {
    f = await startPlatform({ PUBLIC_BASE_URL: BASE });
    producer = await knownParticipant(f, 'producer', { name: 'Ship Mining', provenance: { name: 'Karowe', type: 'mine', country_code: 'BW' } });
    maker = await knownParticipant(f, 'manufacturer');
    retailer = await knownParticipant(f, 'retailer');
  });
  afterAll(async () => {
    await f?.close();
  });

  describe('POST /v2/transfer/out', () => {
    it('ships held rough diamonds: 201 with the shipment, the diamonds go in_transit as new versions, and events go to the outbox', async () => {
      const a = await register(f, producer, {
        box_id: 'SIGHT-7',
        sight_no: 7,
        sight_year: 2024,
        rough: { carats: '1.20', colour: 'F', model: 'M', stress: 'light' },
      });
      const b = await register(f, producer, { rough: { carats: 2 } });
      const before = Date.now();
      const res = await transferOut(f, producer, maker.participant_id, 'rough', [b.diamond_id, a.diamond_id], 'March parcel');
      expect(res.status).toBe(201);
      const s = res.body;
      expect(s).toEqual({
        id: expect.stringMatching(/^[0-9a-z]{26}$/),
        name: 'March parcel',
        sender: BASE,
        shipment_type: 'rough',
        status: 'action_required',
        total_diamonds: 2,
        created_at: expect.stringMatching(SHIPMENT_TS),
        diamonds: [
          {
            created_at: s.created_at,
            updated_at: s.created_at,
            diamond_id: b.diamond_id,
            lifecycle_state: 'rough',
            transfer_state: 'transfer_in_pending',
            rough: { carats: '2', colour: null, model: null, quality: null, stress: null, box_id: 'BOX-1', sight_year: null, sight_number: null },
            polished: null,
          },
          {
            created_at: s.created_at,
            updated_at: s.created_at,
            diamond_id: a.diamond_id,
            lifecycle_state: 'rough',
            transfer_state: 'transfer_in_pending',
            rough: { carats: '1.20', colour: 'F', model: 'M', quality: null, stress: 'light', box_id: 'SIGHT-7', sight_year: 2024, sight_number: 7 },
            polished: null,
          },
        ],
      });
      expect(Math.abs(Date.parse(s.created_at.replace('+0000', 'Z')) - before)).toBeLessThan(120_000);

      for (const d of [a, b]) {
        const state = await diamondState(f, d.diamond_id);
        expect(state).toMatchObject({ holder_id: producer.participant_id, possession_state: 'in_transit', unlock_status: 'locked', revision: '2' });
        const latest = await latestRecord(f, d.diamond_id);
        expect(latest).toMatchObject({ revision: 2, count: 2, record: { possession_state: 'in_transit', version_id: state.version_id } });
        expect(latest.record.version_id).not.toBe(d.version_id);
      }
      const events = await outboxRows(f, s.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ topic: Topics.PLATFORM_SHIPMENTS, event_type: 'shipment.changed', revision: '1' });
      expect(validateEnvelope(Topics.PLATFORM_SHIPMENTS, events[0].payload)).toMatchObject({ ok: true });
      const data = events[0].payload!.data;
      expect(data).toMatchObject({
        shipment_id: s.id,
        status: 'action_required',
        sender_participant_id: producer.participant_id,
        recipient_participant_id: maker.participant_id,
        sender: BASE,
        total_diamonds: 2,
        diamonds: [
          { diamond_id: b.diamond_id, transfer_state: 'transfer_in_pending' },
          { diamond_id: a.diamond_id, transfer_state: 'transfer_in_pending' },
        ],
      });
    });

    it('refuses a diamond already in transit (409), and changes, files, unlock, graded measurements and deletion of it', async () => {
      const d = await register(f, producer);
      const gm = await call<GradingDataView>(f, 'POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token, { carats: 1.2 });
      expect(gm.status).toBe(201);
      await ship(f, producer, maker.participant_id, 'rough', [d.diamond_id]);
      const before = await outboxCount(f);

      const again = await transferOut(f, producer, maker.participant_id, 'rough', [d.diamond_id]);
      expect(again).toMatchObject({ status: 409, body: { reason: 'in_transit', diamond_ids: [d.diamond_id] } });
      expect((again.body as unknown as { message: string }).message).toContain(d.diamond_id);

      const inTransit = { status: 409, body: { reason: 'in_transit', message: expect.stringContaining('in transit') } };
      expect(await call(f, 'POST', `/diamonds/${d.diamond_id}/unlock`, producer.token)).toMatchObject(inTransit);
      expect(await call(f, 'POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token, { carats: 1.3 })).toMatchObject(inTransit);
      expect(await call(f, 'PATCH', `/diamonds/${d.diamond_id}/${gm.body.id}/select`, producer.token)).toMatchObject(inTransit);
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('x')]), 'x.jpg');
      const upload = await fetch(`${f.url}/diamonds/${d.diamond_id}/files/image`, { method: 'POST', headers: { authorization: producer.token }, body: form });
      expect(upload.status).toBe(409);
      expect(await upload.json()).toMatchObject({ reason: 'in_transit' });
      const del = await call<{ results: { status: string; reason: string }[] }>(f, 'POST', '/bulk/diamonds/delete', producer.token, {
        diamonds: [{ diamond_id: d.diamond_id }],
      });
      expect(del.body.results[0]).toMatchObject({ status: 'failure', reason: 'in_transit' });
      // Reading stays possible.
      expect(await call(f, 'GET', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token)).toMatchObject({ status: 200 });
      expect(await outboxCount(f)).toBe(before);
      expect((await diamondState(f, d.diamond_id)).revision).toBe('2');
    });

    it('checks the recipient: unknown (422), yourself (422), a retailer for rough (422), a grading lab (422)', async () => {
      const d = await register(f, producer);
      const field = (res: { status: number; body: unknown }) => {
        expect(res.status).toBe(422);
        return (res.body as { detail: { loc: string[]; msg: string }[] }).detail[0];
      };
      let detail = field(await transferOut(f, producer, '7d7f9a3e-2c1b-4f5e-8a9b-0c1d2e3f4a5b', 'rough', [d.diamond_id]));
      expect(detail.loc).toEqual(['body', 'recipient_participant_id']);
      expect(detail.msg).toContain('no onboarded participant');
      detail = field(await transferOut(f, producer, producer.participant_id, 'rough', [d.diamond_id]));
      expect(detail.msg).toContain('yourself');
      detail = field(await transferOut(f, producer, retailer.participant_id, 'rough', [d.diamond_id]));
      expect(detail.msg).toContain('retailers receive polished shipments only');
      const lab = await onboard(f.stack, 'grading_lab');
      await participantKnown(f, lab.participant_id);
      detail = field(await transferOut(f, producer, lab.participant_id, 'rough', [d.diamond_id]));
      expect(detail.msg).toContain('grading_lab');
      expect((await diamondState(f, d.diamond_id)).possession_state).toBe('held');
    });

    it('takes the recipient id in either case (RFC 9562), and the shipment reaches the recipient', async () => {
      // Before: 422 "no onboarded participant" for the uppercase id of a known participant.
      const d = await register(f, producer);
      const recipient = await knownParticipant(f, 'manufacturer');
      const res = await transferOut(f, producer, recipient.participant_id.toUpperCase(), 'rough', [d.diamond_id]);
      expect(res.status).toBe(201);
      const inbound = await call<{ results: { id: string }[] }>(f, 'GET', '/v2/shipment/inbound', recipient.token);
      expect(inbound.body.results.map((s) => s.id)).toEqual([res.body.id]);
      const self = await transferOut(f, producer, producer.participant_id.toUpperCase(), 'rough', [(await register(f, producer)).diamond_id]);
      expect(self.status).toBe(422);
      expect(JSON.stringify(self.body)).toContain('yourself');
    });

    it('answers 422 for bad bodies, naming the field', async () => {
      const d = await register(f, producer);
      const base = { recipient_participant_id: maker.participant_id, name: 'x', shipment_type: 'rough', diamond_ids: [d.diamond_id] };
      for (const [body, loc] of [
        [{ ...base, shipment_type: 'cut' }, 'body.shipment_type'],
        [{ ...base, diamond_ids: [] }, 'body.diamond_ids'],
        [{ ...base, diamond_ids: [d.diamond_id, d.diamond_id] }, 'body.diamond_ids'],
        [{ ...base, recipient_participant_id: 'nope' }, 'body.recipient_participant_id'],
        [{ ...base, name: '' }, 'body.name'],
        [{ ...base, extra: 1 }, 'body.extra'],
      ] as const) {
        const res = await call<{ detail: { loc: string[] }[] }>(f, 'POST', '/v2/transfer/out', producer.token, body);
        expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
        expect(res.body.detail.map((x) => x.loc.join('.'))).toContain(loc);
      }
    });

    it("ships only diamonds the caller holds (403 naming the others, 404 naming unknown ids) of the shipment's kind (409)", async () => {
      const mine = await register(f, producer);
      const theirs = await register(f, maker);
      // Unknown ids (and malformed ones) first: 404 naming them.
      const res = await transferOut(f, producer, maker.participant_id, 'rough', [mine.diamond_id, theirs.diamond_id, 'zzzzzzzzzzzzzzzzzzzzzzzzzz']);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: expect.stringContaining('diamond not found'), diamond_ids: ['zzzzzzzzzzzzzzzzzzzzzzzzzz'] });
      // Another participant's diamond: 403 naming it.
      const forbidden = await transferOut(f, producer, maker.participant_id, 'rough', [mine.diamond_id, theirs.diamond_id]);
      expect(forbidden).toMatchObject({
        status: 403,
        body: { message: expect.stringContaining(theirs.diamond_id), reason: 'not_holder', diamond_ids: [theirs.diamond_id] },
      });
      expect(await transferOut(f, producer, maker.participant_id, 'rough', [mine.diamond_id, 'BAD'])).toMatchObject({
        status: 404,
        body: { diamond_ids: ['BAD'] },
      });
      expect((await diamondState(f, mine.diamond_id)).possession_state).toBe('held');
      // A rough shipment holds rough diamonds only; a polished one polished only.
      const polished = await polishedDiamond(f, maker);
      const wrong = await transferOut(f, maker, retailer.participant_id, 'polished', [theirs.diamond_id, polished.diamond_id]);
      expect(wrong).toMatchObject({ status: 409, body: { reason: 'wrong_lifecycle_state', diamond_ids: [theirs.diamond_id] } });
      const wrong2 = await transferOut(f, maker, producer.participant_id, 'rough', [polished.diamond_id]);
      expect(wrong2).toMatchObject({ status: 409, body: { reason: 'wrong_lifecycle_state', diamond_ids: [polished.diamond_id] } });
      // Retailers send polished shipments only.
      expect(await transferOut(f, retailer, maker.participant_id, 'rough', [mine.diamond_id])).toMatchObject({ status: 403 });
      expect((await transferOut(f, producer, maker.participant_id, 'rough', [mine.diamond_id])).status).toBe(201);
      expect((await transferOut(f, producer, maker.participant_id, 'rough', [mine.diamond_id])).status).toBe(409);
      expect(await call(f, 'POST', '/v2/transfer/out', null, {})).toMatchObject({ status: 401 });
    });
  });

  describe('accept and reject', () => {
    it('rough: all or nothing (409 and no change for a partial answer); only the recipient (404 for others); accept passes the diamonds over', async () => {
      const { shipment, diamonds } = await roughShipment(f, producer, maker, [1, 2, 3]);
      const ids = diamonds.map((d) => d.diamond_id);
      const before = await outboxCount(f);

      const partial = await decide(f, maker, shipment.id, 'accept', ids.slice(0, 2));
      expect(partial).toMatchObject({ status: 409, body: { reason: 'rough_shipment_all_or_nothing', missing_diamond_ids: [ids[2]] } });
      expect((partial.body as unknown as { message: string }).message).toContain('as a whole');
      expect((await decide(f, maker, shipment.id, 'reject', ids.slice(1))).status).toBe(409);
      // The sender, a third party and an unknown id get the same 404.
      const other = await knownParticipant(f, 'manufacturer');
      for (const who of [producer, other]) {
        expect(await decide(f, who, shipment.id, 'accept', ids)).toMatchObject({ status: 404, body: { message: 'shipment not found' } });
      }
      expect(await decide(f, maker, '01hzzzzzzzzzzzzzzzzzzzzzzz', 'accept', ids)).toMatchObject({ status: 404, body: { message: 'shipment not found' } });
      expect(await decide(f, maker, 'NOT-AN-ID', 'accept', ids)).toMatchObject({ status: 404, body: { message: 'shipment not found' } });
      expect(await outboxCount(f)).toBe(before);
      for (const id of ids)
        expect(await diamondState(f, id)).toMatchObject({ possession_state: 'in_transit', holder_id: producer.participant_id, revision: '2' });

      const res = await decide(f, maker, shipment.id, 'accept', [ids[2], ids[0], ids[1]]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: shipment.id, status: 'completed', total_diamonds: 3 });
      expect(res.body.diamonds.map((d) => d.transfer_state)).toEqual(['transfer_in_confirmed', 'transfer_in_confirmed', 'transfer_in_confirmed']);
      expect(res.body.diamonds[0].updated_at).toMatch(SHIPMENT_TS);
      for (const id of ids) {
        expect(await diamondState(f, id)).toMatchObject({
          holder_id: maker.participant_id,
          uploader_id: producer.participant_id,
          possession_state: 'held',
          unlock_status: 'unlocked',
          revision: '3',
        });
        expect((await latestRecord(f, id)).record).toMatchObject({ possession_state: 'held', unlock_status: 'unlocked' });
      }
      const events = await outboxRows(f, shipment.id);
      expect(events.map((e) => [e.event_type, e.revision])).toEqual([
        ['shipment.changed', '1'],
        ['shipment.changed', '2'],
      ]);
      expect(events[1].payload!.data).toMatchObject({
        status: 'completed',
        diamonds: ids.map((id) => ({ diamond_id: id, transfer_state: 'transfer_in_confirmed' })),
      });
      // Answered: a second answer is 409 naming the ids; the new holder may now act on the diamonds.
      expect(await decide(f, maker, shipment.id, 'accept', ids)).toMatchObject({ status: 409, body: { reason: 'not_pending', already_answered: ids } });
      expect((await call(f, 'POST', `/diamonds/${ids[0]}/unlock`, maker.token)).status).toBe(200);
      expect((await call(f, 'POST', `/diamonds/${ids[0]}/unlock`, producer.token)).status).toBe(403);
      // Accepted diamonds are unlocked: nobody can delete them.
      const del = await call<{ results: { reason: string }[] }>(f, 'POST', '/bulk/diamonds/delete', producer.token, { diamonds: [{ diamond_id: ids[1] }] });
      expect(del.body.results[0].reason).toBe('unlocked');
    });

    it('rough reject (also without /v2): the diamonds go back to the sender, held and still locked', async () => {
      for (const prefix of ['', '/v2'] as const) {
        const { shipment, diamonds } = await roughShipment(f, producer, maker, [1.5, 0.5]);
        const ids = diamonds.map((d) => d.diamond_id);
        const res = await decide(f, maker, shipment.id, 'reject', ids, prefix);
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('completed');
        expect(res.body.diamonds.map((d) => d.transfer_state)).toEqual(['transfer_in_rejected', 'transfer_in_rejected']);
        for (const id of ids)
          expect(await diamondState(f, id)).toMatchObject({
            holder_id: producer.participant_id,
            possession_state: 'held',
            unlock_status: 'locked',
            revision: '3',
          });
        // Back with the sender: it can change, ship and delete it again.
        expect((await call(f, 'POST', `/diamonds/${ids[0]}/graded-measurements`, producer.token, { carats: 1.5 })).status).toBe(201);
        const del = await call<{ results: { status: string }[] }>(f, 'POST', '/bulk/diamonds/delete', producer.token, { diamonds: [{ diamond_id: ids[1] }] });
        expect(del.body.results[0].status).toBe('success');
      }
    });

    it('polished: per diamond; ids not in the shipment or already answered are 409 with the ids named', async () => {
      const p1 = await polishedDiamond(f, maker, '0.51');
      const p2 = await polishedDiamond(f, maker, '0.62');
      const s = await ship(f, maker, retailer.participant_id, 'polished', [p1.diamond_id, p2.diamond_id]);
      expect(s.diamonds[0]).toMatchObject({
        lifecycle_state: 'polished',
        polished: { carats: '0.51', clarity: 'VS1', colour: 'E', cut_grade: 'EX', shape: 'Round' },
        rough: { carats: '1.5' },
      });
      const stranger = await register(f, producer);
      const bad = await decide(f, retailer, s.id, 'accept', [p1.diamond_id, stranger.diamond_id]);
      expect(bad).toMatchObject({ status: 409, body: { reason: 'not_pending', not_in_shipment: [stranger.diamond_id], already_answered: [] } });
      expect((bad.body as unknown as { message: string }).message).toContain(stranger.diamond_id);

      const one = await decide(f, retailer, s.id, 'accept', [p1.diamond_id]);
      expect(one.status).toBe(200);
      expect(one.body.status).toBe('action_required');
      expect(one.body.diamonds.map((d) => [d.diamond_id, d.transfer_state])).toEqual([
        [p1.diamond_id, 'transfer_in_confirmed'],
        [p2.diamond_id, 'transfer_in_pending'],
      ]);
      expect(await diamondState(f, p1.diamond_id)).toMatchObject({ holder_id: retailer.participant_id, possession_state: 'held', unlock_status: 'unlocked' });
      expect(await diamondState(f, p2.diamond_id)).toMatchObject({ holder_id: maker.participant_id, possession_state: 'in_transit' });

      const twice = await decide(f, retailer, s.id, 'reject', [p1.diamond_id, p2.diamond_id]);
      expect(twice).toMatchObject({ status: 409, body: { reason: 'not_pending', already_answered: [p1.diamond_id] } });
      const rest = await decide(f, retailer, s.id, 'reject', [p2.diamond_id]);
      expect(rest.body.status).toBe('completed');
      expect(await diamondState(f, p2.diamond_id)).toMatchObject({ holder_id: maker.participant_id, possession_state: 'held', unlock_status: 'locked' });
    });

    it('only the active graded measurement travels with an accepted diamond', async () => {
      const d = await register(f, producer);
      const add = async (carats: number) =>
        (await call<GradingDataView>(f, 'POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token, { carats })).body;
      const a = await add(1.1);
      const b = await add(1.2);
      expect((await call(f, 'PATCH', `/diamonds/${d.diamond_id}/${b.id}/select`, producer.token)).status).toBe(200);
      const s = await ship(f, producer, maker.participant_id, 'rough', [d.diamond_id]);
      expect((await decide(f, maker, s.id, 'accept', [d.diamond_id])).status).toBe(200);
      const list = await call<GradedMeasurementsResponse>(f, 'GET', `/diamonds/${d.diamond_id}/graded-measurements`, maker.token);
      expect(list.body.results).toEqual([{ ...b, is_active: true }]);
      expect((await latestRecord(f, d.diamond_id)).record.grading).toEqual([{ ...b, is_active: true }]);
      // The record left behind is kept (not lost) but cannot be selected by the new holder.
      expect((await call(f, 'PATCH', `/diamonds/${d.diamond_id}/${a.id}/select`, maker.token)).status).toBe(404);
      const kept = await f.db.query(`SELECT held_back_at FROM graded_measurements WHERE id = $1`, [a.id]);
      expect(kept.rows[0].held_back_at).toBeInstanceOf(Date);
    });

    it('concurrent accepts of the same shipment: exactly one wins, the state is consistent', async () => {
      const { shipment, diamonds } = await roughShipment(f, producer, maker, [1, 1, 1, 1]);
      const ids = diamonds.map((d) => d.diamond_id);
      const before = await outboxCount(f);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => decide(f, maker, shipment.id, i % 2 ? 'accept' : 'reject', ids)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
      const winner = answers.find((a) => a.status === 200)!;
      const state = winner.body.diamonds[0].transfer_state;
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toMatchObject({ reason: 'not_pending' });
      for (const id of ids) expect((await diamondState(f, id)).revision).toBe('3');
      // One new version per diamond and one shipment.changed: nothing applied twice.
      expect(await outboxCount(f)).toBe(before + ids.length + 1);
      const { rows } = await f.db.query(`SELECT DISTINCT transfer_state FROM shipment_diamonds WHERE shipment_id = $1`, [shipment.id]);
      expect(rows).toEqual([{ transfer_state: state }]);

      // Polished: parallel per-diamond accepts of different diamonds all succeed and complete the shipment once.
      const ps = [await polishedDiamond(f, maker), await polishedDiamond(f, maker), await polishedDiamond(f, maker)];
      const s2 = await ship(
        f,
        maker,
        retailer.participant_id,
        'polished',
        ps.map((p) => p.diamond_id),
      );
      const parallel = await Promise.all(ps.map((p) => decide(f, retailer, s2.id, 'accept', [p.diamond_id])));
      expect(parallel.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(parallel.filter((a) => a.body.status === 'completed')).toHaveLength(1);
      const revs = (await outboxRows(f, s2.id)).map((e) => e.revision);
      expect(revs).toEqual(['1', '2', '3', '4']);
    });
  });

  it('ships and accepts 1,000 diamonds (the most one request takes) in one transaction each', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => register(f, producer, { box_id: 'BULK', rough: { carats: '0.25' } })));
      ids.push(...batch.map((d) => d.diamond_id));
    }
    const before = await outboxCount(f);
    const s = await ship(f, producer, maker.participant_id, 'rough', ids);
    expect(s.total_diamonds).toBe(1000);
    expect(s.diamonds.map((d) => d.diamond_id)).toEqual(ids);
    expect(await outboxCount(f)).toBe(before + 1001);
    const res = await decide(f, maker, s.id, 'accept', ids);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    const { rows } = await f.db.query(
      `SELECT holder_id, possession_state, unlock_status, revision, count(*)::int AS n FROM diamonds WHERE diamond_id = ANY($1) GROUP BY 1, 2, 3, 4`,
      [ids],
    );
    expect(rows).toEqual([{ holder_id: maker.participant_id, possession_state: 'held', unlock_status: 'unlocked', revision: '3', n: 1000 }]);
    expect(await outboxCount(f)).toBe(before + 2002);
    // The shipment's weight is the decimal sum of its diamonds' carats: 1,000 x 0.25 = 250 ct (+ 10 ct allowance).
    const { rows: totals } = await f.db.query(`SELECT total_carats::text FROM shipments WHERE shipment_id = $1`, [s.id]);
    expect(totals[0].total_carats).toBe('250');
  });

  it('publishes shipment.changed through the relay', async () => {
    const got: string[] = [];
    const sub = await f.stack.transport.subscribe({
      topic: Topics.PLATFORM_SHIPMENTS,
      group: `test-shipments-${Date.now()}`,
      fromBeginning: true,
      handler: async (m) => {
        got.push(m.key ?? '');
      },
    });
    try {
      const { shipment } = await roughShipment(f, producer, maker, [1]);
      const until = Date.now() + 10_000;
      while (!got.includes(shipment.id) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(got).toContain(shipment.id);
    } finally {
      await sub.close();
    }
  });
});
