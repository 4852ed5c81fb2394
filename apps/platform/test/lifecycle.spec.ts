import { LIFECYCLE_TRANSITIONS } from '@dtp/domain';
import type { DiamondV1 } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxCount, outboxRows, PlatformFixture, register, startPlatform } from './helpers';
import { decide, diamondState, knownParticipant, latestRecord, ship } from './shipments-helpers';

interface SplitResult {
  parent: DiamondV1;
  cuts: DiamondV1[];
}

const TS = '2024-04-02T09:30:00+02:00';

describe('lifecycle: polish, split, destroy (manufacturer)', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;
  let maker: ParticipantWithToken;

  const polish = (who: ParticipantWithToken, parent: DiamondV1 | string, extra: Record<string, unknown> = {}) =>
    call<DiamondV1>(f, 'POST', '/diamonds/polished/create', who.token, {
      parent_diamond_id: typeof parent === 'string' ? parent : parent.diamond_id,
      participant_id: `POL-${Math.random().toString(36).slice(2)}`,
      participant_timestamp: TS,
      polished: { carats: '0.71', shape: 'Oval', colour: 'G', clarity: 'VS2', cut_grade: 'VG', table_percent: 57.5 },
      ...extra,
    });
  const split = (who: ParticipantWithToken, d: DiamondV1 | string, carats: (number | string)[]) =>
    call<SplitResult>(f, 'POST', `/diamonds/${typeof d === 'string' ? d : d.diamond_id}/split`, who.token, {
      participant_timestamp: TS,
      cuts: carats.map((c, i) => ({ participant_id: `CUT-${i + 1}`, rough: { carats: c, colour: 'H' } })),
    });
  const destroy = (who: ParticipantWithToken, d: DiamondV1 | string, body?: unknown) =>
    call<DiamondV1>(f, 'POST', `/diamonds/${typeof d === 'string' ? d : d.diamond_id}/destroy`, who.token, body);

  /** A rough diamond from the producer, accepted by the maker (so the maker holds a producer's diamond). */
  async function receivedRough(carats: number | string = '2.00'): Promise<DiamondV1> {
    const d = await register(f, producer, { box_id: 'SIGHT-9', sight_no: 9, sight_year: 2024, rough: { carats, colour: 'G', model: 'M-9' } });
    const s = await ship(f, producer, maker.participant_id, 'rough', [d.diamond_id]);
    expect((await decide(f, maker, s.id, 'accept', [d.diamond_id])).status).toBe(200);
    return d;
  }

  beforeAll(async () => {
    f = await startPlatform();
    producer = await knownParticipant(f, 'producer', { name: 'Cut Mining', provenance: { name: 'Orapa', type: 'mine', country_code: 'BW' } });
    maker = await knownParticipant(f, 'manufacturer');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('polish: a polished child linked to the rough parent; the parent becomes polished; each gets its own event', async () => {
    const parent = await receivedRough();
    const before = await outboxCount(f);
    const res = await polish(maker, parent, { participant_id: 'POL-1', supplementary_tags: { lot: 'P' } });
    expect(res.status).toBe(200);
    const child = res.body;
    expect(child.diamond_id).toMatch(/^[0-9a-z]{26}$/);
    expect(child).toMatchObject({
      lifecycle_state: 'polished',
      current_stage: 'polished',
      possession_state: 'held',
      unlock_status: 'locked',
      diamond_parent_id: parent.diamond_id,
      parent_id: parent.id,
      participant_id: 'POL-1',
      participant_parent_id: parent.participant_id,
      participant_timestamp: TS,
      polished: { carats: '0.71', shape: 'Oval', colour: 'G', clarity: 'VS2', cut_grade: 'VG', table_percent: 57.5 },
      rough: { carats: '2.00', colour: 'G', model: 'M-9' },
      producer_uuid: producer.participant_id,
      provenance: parent.provenance,
      box_id: 'SIGHT-9',
      sight_no: 9,
      supplementary_tags: { lot: 'P' },
      grading: null,
    });
    expect(parent.provenance).toMatchObject({ provenance_name: 'Orapa', is_locked: true });
    const p = await diamondState(f, parent.diamond_id);
    expect(p).toMatchObject({ lifecycle_state: 'polished', holder_id: maker.participant_id });
    const parentLatest = await latestRecord(f, parent.diamond_id);
    expect(parentLatest.record).toMatchObject({ lifecycle_state: 'polished', current_stage: 'rough', participant_timestamp: TS });
    expect((await outboxRows(f, child.diamond_id)).map((r) => [r.event_type, r.revision])).toEqual([['diamond.upserted', '1']]);
    expect((await outboxRows(f, child.diamond_id))[0].payload!.data).toEqual(JSON.parse(JSON.stringify(child)));
    expect(await outboxCount(f)).toBe(before + 2);
    expect((await diamondState(f, child.diamond_id)).uploader_id).toBe(maker.participant_id);
    // Polishing again is an illegal move.
    expect(await polish(maker, parent)).toMatchObject({ status: 409, body: { reason: 'illegal_transition', from: 'polished', to: 'polished' } });
  });

  it('split: rough cuts linked to the parent; the parent becomes split; the cuts may not weigh more than the parent', async () => {
    const parent = await receivedRough('1.00');
    const heavy = await split(maker, parent, ['0.5', '0.501']);
    expect(heavy).toMatchObject({ status: 409, body: { reason: 'cuts_exceed_parent_weight', parent_carats: '1.00', carats: '1.001' } });
    expect((await diamondState(f, parent.diamond_id)).lifecycle_state).toBe('rough');

    // 0.1 + 0.2 + 0.7 is exactly 1.00 in decimal arithmetic.
    const res = await split(maker, parent, [0.1, 0.2, '0.7']);
    expect(res.status).toBe(200);
    expect(res.body.parent).toMatchObject({ diamond_id: parent.diamond_id, lifecycle_state: 'split', participant_timestamp: TS });
    expect(res.body.cuts.map((c) => c.rough.carats)).toEqual(['0.1', '0.2', '0.7']);
    for (const [i, cut] of res.body.cuts.entries()) {
      expect(cut).toMatchObject({
        lifecycle_state: 'rough',
        current_stage: 'rough',
        diamond_parent_id: parent.diamond_id,
        participant_parent_id: parent.participant_id,
        participant_id: `CUT-${i + 1}`,
        polished: {},
        rough: { colour: 'H' },
        unlock_status: 'locked',
        provenance: parent.provenance,
        producer_uuid: producer.participant_id,
      });
      expect((await outboxRows(f, cut.diamond_id)).length).toBe(1);
    }
    // A cut is a rough diamond: it can be polished, and its polished child can be shipped.
    const child = await polish(maker, res.body.cuts[0], { polished: { carats: '0.05', shape: 'Round' } });
    expect(child.status).toBe(200);
    expect(await split(maker, parent, [0.1, 0.1])).toMatchObject({ status: 409, body: { reason: 'illegal_transition', from: 'split', to: 'split' } });
    // Polished weight may not exceed the rough either.
    expect(await polish(maker, res.body.cuts[1], { polished: { carats: '0.3', shape: 'Round' } })).toMatchObject({
      status: 409,
      body: { reason: 'polished_exceeds_parent_weight' },
    });
  });

  it('split takes {cuts} alone (DESIGN.md): participant_timestamp defaults to when the request was received; given ones are kept', async () => {
    const parent = await receivedRough('1.00');
    const before = Date.now();
    const res = await call<SplitResult>(f, 'POST', `/diamonds/${parent.diamond_id}/split`, maker.token, {
      cuts: [
        { participant_id: 'CUT-A', rough: { carats: '0.4' } },
        { participant_id: 'CUT-B', rough: { carats: '0.4' }, participant_timestamp: '2024-07-01T12:00:00Z' },
      ],
    });
    const after = Date.now();
    expect(res.status).toBe(200);
    const received = Date.parse(res.body.parent.participant_timestamp);
    expect(received).toBeGreaterThanOrEqual(before - 1000);
    expect(received).toBeLessThanOrEqual(after);
    expect(res.body.cuts.map((c) => c.participant_timestamp)).toEqual([res.body.parent.participant_timestamp, '2024-07-01T12:00:00Z']);
    // Given at the top level, it is kept as sent.
    const other = await receivedRough('1.00');
    const given = await split(maker, other, ['0.3', '0.3']);
    expect(given.status).toBe(200);
    expect([given.body.parent, ...given.body.cuts].map((d) => d.participant_timestamp)).toEqual([TS, TS, TS]);
    expect((await call(f, 'POST', `/diamonds/${other.diamond_id}/split`, maker.token, { participant_timestamp: 'soon', cuts: [] })).status).toBe(422);
  });

  it('destroy: rough -> destroyed, body optional; every other move is refused with 409 illegal_transition {from, to}', async () => {
    const a = await receivedRough();
    const res = await destroy(maker, a);
    expect(res).toMatchObject({ status: 200, body: { diamond_id: a.diamond_id, lifecycle_state: 'destroyed' } });
    const b = await receivedRough();
    expect(await destroy(maker, b, { participant_timestamp: TS })).toMatchObject({
      status: 200,
      body: { lifecycle_state: 'destroyed', participant_timestamp: TS },
    });
    expect(await destroy(maker, b, { participant_timestamp: 'yesterday' })).toMatchObject({ status: 422 });

    const illegal = (from: string, to: string) => ({
      status: 409,
      body: { reason: 'illegal_transition', from, to, message: expect.stringContaining(`from lifecycle_state ${from} to ${to}`) },
    });
    expect(await destroy(maker, a)).toMatchObject(illegal('destroyed', 'destroyed'));
    expect(await polish(maker, a)).toMatchObject(illegal('destroyed', 'polished'));
    expect(await split(maker, a, [0.1, 0.1])).toMatchObject(illegal('destroyed', 'split'));
    const c = await receivedRough();
    const polished = (await polish(maker, c)).body;
    expect(await destroy(maker, polished)).toMatchObject(illegal('polished', 'destroyed'));
    expect(await split(maker, polished, [0.1, 0.1])).toMatchObject(illegal('polished', 'split'));
    expect(await polish(maker, polished)).toMatchObject(illegal('polished', 'polished'));
    expect(await destroy(maker, c)).toMatchObject(illegal('polished', 'destroyed'));
    // The table these answers follow.
    expect(LIFECYCLE_TRANSITIONS).toEqual({ rough: ['polished', 'split', 'destroyed'], split: [], polished: [], destroyed: [] });
  });

  it('is for manufacturers (403 otherwise), on diamonds they hold (403 otherwise; 404 unknown), not in transit (409)', async () => {
    const own = await register(f, producer);
    expect(await polish(producer, own)).toMatchObject({ status: 403 });
    expect(await destroy(producer, own)).toMatchObject({ status: 403 });
    const retailer = await knownParticipant(f, 'retailer');
    expect(await split(retailer, own, [0.1, 0.1])).toMatchObject({ status: 403 });
    // Another participant's diamond: 403 saying who may; an unknown id: 404.
    expect(await polish(maker, own)).toMatchObject({
      status: 403,
      body: { message: `only the holder of diamond ${own.diamond_id} may polish it`, reason: 'not_holder' },
    });
    expect(await destroy(maker, own)).toMatchObject({
      status: 403,
      body: { message: `only the holder of diamond ${own.diamond_id} may destroy it`, reason: 'not_holder' },
    });
    expect(await split(maker, own, [0.1, 0.1])).toMatchObject({
      status: 403,
      body: { message: `only the holder of diamond ${own.diamond_id} may split it`, reason: 'not_holder' },
    });
    expect(await destroy(maker, '01hzzzzzzzzzzzzzzzzzzzzzzz')).toMatchObject({ status: 404, body: { message: 'diamond not found' } });
    expect(await split(maker, '01hzzzzzzzzzzzzzzzzzzzzzzz', [0.1, 0.1])).toMatchObject({ status: 404, body: { message: 'diamond not found' } });
    // In transit: the sender still holds it but cannot change it.
    const d = await register(f, maker);
    const other = await knownParticipant(f, 'manufacturer');
    await ship(f, maker, other.participant_id, 'rough', [d.diamond_id]);
    expect(await polish(maker, d)).toMatchObject({ status: 409, body: { reason: 'in_transit' } });
    expect(await split(maker, d, [0.1, 0.1])).toMatchObject({ status: 409, body: { reason: 'in_transit' } });
    expect(await destroy(maker, d)).toMatchObject({ status: 409, body: { reason: 'in_transit' } });
    expect((await diamondState(f, d.diamond_id)).lifecycle_state).toBe('rough');
  });

  it('answers 422 for bad bodies, naming the field', async () => {
    const d = await register(f, maker);
    for (const [res, loc] of [
      [await polish(maker, d, { polished: { carats: 0.5 } }), 'body.polished.shape'],
      [await polish(maker, d, { polished: { carats: -1, shape: 'Round' } }), 'body.polished.carats'],
      [await polish(maker, 'NOT AN ID'), 'body.parent_diamond_id'],
      [await polish(maker, d, { participant_id: ' padded ' }), 'body.participant_id'],
      [await split(maker, d, [0.1]), 'body.cuts'],
      [
        await call(f, 'POST', `/diamonds/${d.diamond_id}/split`, maker.token, {
          participant_timestamp: TS,
          cuts: [
            { participant_id: 'A', rough: { carats: 0.1 } },
            { participant_id: 'A', rough: { carats: 0.1 } },
          ],
        }),
        'body.cuts',
      ],
      [
        await call(f, 'POST', `/diamonds/${d.diamond_id}/split`, maker.token, {
          participant_timestamp: TS,
          cuts: [
            { participant_id: 'A', rough: { carats: 0.1 } },
            { participant_id: 'B', rough: {} },
          ],
        }),
        'body.cuts.1.rough.carats',
      ],
      [await destroy(maker, d, { extra: 1 }), 'body.extra'],
    ] as const) {
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect((res.body as unknown as { detail: { loc: string[] }[] }).detail.map((x) => x.loc.join('.'))).toContain(loc);
    }
    expect((await diamondState(f, d.diamond_id)).revision).toBe('1');
  });

  it('children link to their parents: deletion with descendants takes the whole tree', async () => {
    const root = await register(f, maker, { rough: { carats: 3 } });
    const cuts = (await split(maker, root, [1, 1])).body.cuts;
    const grandchild = (await polish(maker, cuts[0], { polished: { carats: '0.4', shape: 'Round' } })).body;
    const refused = await call<{ results: { status: string; reason: string }[] }>(f, 'POST', '/bulk/diamonds/delete', maker.token, {
      diamonds: [{ diamond_id: root.diamond_id }],
    });
    expect(refused.body.results[0]).toMatchObject({ status: 'failure', reason: 'has_descendants' });
    const res = await call<{ results: { status: string; descendants: string[] }[] }>(f, 'POST', '/bulk/diamonds/delete', maker.token, {
      diamonds: [{ diamond_id: root.diamond_id, delete_descendants: true }],
    });
    expect(res.body.results[0].status).toBe('success');
    expect(res.body.results[0].descendants.sort()).toEqual([cuts[0].diamond_id, cuts[1].diamond_id, grandchild.diamond_id].sort());
    const { rows } = await f.db.query(`SELECT 1 FROM diamonds WHERE diamond_id = ANY($1)`, [[root.diamond_id, grandchild.diamond_id]]);
    expect(rows).toHaveLength(0);
  });
});
