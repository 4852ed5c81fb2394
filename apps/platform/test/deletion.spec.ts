import type { BulkDeleteResponse, DeleteFailureEntry, DiamondV1 } from '@dtp/domain';
import type { ParticipantWithToken } from '@dtp/testing';
import { call, outboxCount, outboxRows, participant, participantKnown, PlatformFixture, register, startPlatform } from './helpers';

const DELETE = '/bulk/diamonds/delete';

describe('POST /bulk/diamonds/delete', () => {
  let f: PlatformFixture;
  let producer: ParticipantWithToken;

  const del = (who: ParticipantWithToken | null, diamonds: unknown) => call<BulkDeleteResponse>(f, 'POST', DELETE, who?.token ?? null, { diamonds });
  const exists = async (id: string) => (await f.db.query(`SELECT 1 FROM diamonds WHERE diamond_id = $1`, [id])).rowCount === 1;
  /** Makes `child` a child of `parent` (lifecycle endpoints come later; the link is what deletion reads). */
  const link = async (child: DiamondV1, parent: DiamondV1) =>
    f.db.query(`UPDATE diamonds SET diamond_parent_id = $2, participant_parent_id = $3 WHERE diamond_id = $1`, [
      child.diamond_id,
      parent.diamond_id,
      parent.participant_id,
    ]);

  beforeAll(async () => {
    f = await startPlatform();
    producer = await participant(f, 'producer');
    await participantKnown(f, producer.participant_id);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('deletes a locked diamond of the uploader permanently: diamond.deleted + tombstone, graded measurements too', async () => {
    const d = await register(f, producer);
    const gm = await call(f, 'POST', `/diamonds/${d.diamond_id}/graded-measurements`, producer.token, { carats: 1.01, colour: 'E' });
    expect(gm.status).toBe(201);
    const res = await del(producer, [{ diamond_id: d.diamond_id }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: [{ diamond_id: d.diamond_id, participant_id: d.participant_id, status: 'success', descendants: [] }] });
    expect(await exists(d.diamond_id)).toBe(false);
    expect((await f.db.query(`SELECT 1 FROM graded_measurements WHERE diamond_id = $1`, [d.diamond_id])).rowCount).toBe(0);
    const rows = await outboxRows(f, d.diamond_id);
    expect(rows.map((r) => [r.event_type, r.revision, r.payload === null])).toEqual([
      ['diamond.upserted', '1', false],
      ['diamond.deleted', '2', false],
      ['diamond.deleted', '2', true],
    ]);
    expect(rows[1].payload).toMatchObject({ event_type: 'diamond.deleted', key: d.diamond_id, revision: 2, data: { diamond_id: d.diamond_id } });
    // Deleted for good: a second request finds nothing.
    expect((await del(producer, [{ diamond_id: d.diamond_id }])).body.results[0]).toMatchObject({ status: 'failure', reason: 'not_found' });
  });

  it('answers not_found only for unknown ids, not_owner for any diamond the caller did not upload (held or not)', async () => {
    const other = await participant(f, 'producer');
    const theirs = await register(f, other);
    const held = await register(f, producer);
    await f.db.query(`UPDATE diamonds SET uploader_id = $2 WHERE diamond_id = $1`, [held.diamond_id, other.participant_id]);
    const before = await outboxCount(f);
    const res = await del(producer, [
      { diamond_id: '01hzzzzzzzzzzzzzzzzzzzzzzz' },
      { diamond_id: 'NOT-AN-ID' },
      { diamond_id: theirs.diamond_id, delete_descendants: true },
      { diamond_id: held.diamond_id },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { diamond_id: '01hzzzzzzzzzzzzzzzzzzzzzzz', participant_id: null, status: 'failure', reason: 'not_found', detail: expect.any(String), descendants: [] },
      { diamond_id: 'NOT-AN-ID', participant_id: null, status: 'failure', reason: 'not_found', detail: expect.any(String), descendants: [] },
      { diamond_id: theirs.diamond_id, participant_id: null, status: 'failure', reason: 'not_owner', detail: expect.any(String), descendants: [] },
      { diamond_id: held.diamond_id, participant_id: null, status: 'failure', reason: 'not_owner', detail: expect.any(String), descendants: [] },
    ]);
    // The detail says why; the uploader's own reference (participant_id) is not handed to another participant.
    expect((res.body.results[2] as DeleteFailureEntry).detail).toBe(`only the participant that uploaded diamond ${theirs.diamond_id} may delete it`);
    expect(await exists(theirs.diamond_id)).toBe(true);
    expect(await exists(held.diamond_id)).toBe(true);
    expect(await outboxCount(f)).toBe(before);
  });

  it('never deletes an unlocked diamond or one in transit', async () => {
    const unlocked = await register(f, producer);
    expect((await call(f, 'POST', `/diamonds/${unlocked.diamond_id}/unlock`, producer.token)).status).toBe(200);
    const moving = await register(f, producer);
    await f.db.query(`UPDATE diamonds SET possession_state = 'in_transit' WHERE diamond_id = $1`, [moving.diamond_id]);
    const before = await outboxCount(f);
    const res = await del(producer, [{ diamond_id: unlocked.diamond_id }, { diamond_id: moving.diamond_id }]);
    expect(res.body.results.map((r) => [r.status, 'reason' in r ? r.reason : null])).toEqual([
      ['failure', 'unlocked'],
      ['failure', 'in_transit'],
    ]);
    expect(await exists(unlocked.diamond_id)).toBe(true);
    expect(await exists(moving.diamond_id)).toBe(true);
    expect(await outboxCount(f)).toBe(before);
  });

  it('refuses a diamond with descendants unless delete_descendants is true, then removes the whole subtree', async () => {
    const root = await register(f, producer);
    const child = await register(f, producer);
    const grandchild = await register(f, producer);
    const child2 = await register(f, producer);
    await link(child, root);
    await link(child2, root);
    await link(grandchild, child);
    const before = await outboxCount(f);
    const refused = await del(producer, [{ diamond_id: root.diamond_id }, { diamond_id: root.diamond_id, delete_descendants: false }]);
    for (const r of refused.body.results) expect(r).toMatchObject({ status: 'failure', reason: 'has_descendants', descendants: [] });
    expect(await outboxCount(f)).toBe(before);

    const res = await del(producer, [{ diamond_id: root.diamond_id, delete_descendants: true }]);
    expect(res.body.results).toHaveLength(1);
    const entry = res.body.results[0];
    expect(entry).toMatchObject({ diamond_id: root.diamond_id, participant_id: root.participant_id, status: 'success' });
    expect([...entry.descendants].sort()).toEqual([child.diamond_id, child2.diamond_id, grandchild.diamond_id].sort());
    for (const d of [root, child, child2, grandchild]) {
      expect(await exists(d.diamond_id)).toBe(false);
      const rows = await outboxRows(f, d.diamond_id);
      expect(rows.slice(1).map((r) => [r.event_type, r.revision, r.payload === null])).toEqual([
        ['diamond.deleted', '2', false],
        ['diamond.deleted', '2', true],
      ]);
    }
    expect(await outboxCount(f)).toBe(before + 8);
  });

  it("answers has_descendants without delete_descendants whatever the descendants' state; descendant_unlocked only with it", async () => {
    const root = await register(f, producer);
    const child = await register(f, producer);
    const grandchild = await register(f, producer);
    await link(child, root);
    await link(grandchild, child);
    await f.db.query(`UPDATE diamonds SET unlock_status = 'unlocked' WHERE diamond_id = $1`, [grandchild.diamond_id]);
    await f.db.query(`UPDATE diamonds SET possession_state = 'in_transit' WHERE diamond_id = $1`, [child.diamond_id]);
    const before = await outboxCount(f);
    const res = await del(producer, [
      { diamond_id: root.diamond_id },
      { diamond_id: root.diamond_id, delete_descendants: false },
      { diamond_id: root.diamond_id, delete_descendants: true },
    ]);
    expect(res.body.results.map((r) => [r.diamond_id, r.status, 'reason' in r ? r.reason : null])).toEqual([
      [root.diamond_id, 'failure', 'has_descendants'],
      [root.diamond_id, 'failure', 'has_descendants'],
      [root.diamond_id, 'failure', 'descendant_unlocked'],
    ]);
    for (const d of [root, child, grandchild]) expect(await exists(d.diamond_id)).toBe(true);
    expect(await outboxCount(f)).toBe(before);
  });

  it('deletes nothing of a subtree when one descendant is unlocked (the whole subtree or nothing)', async () => {
    const root = await register(f, producer);
    const child = await register(f, producer);
    const grandchild = await register(f, producer);
    await link(child, root);
    await link(grandchild, child);
    await f.db.query(`UPDATE diamonds SET unlock_status = 'unlocked' WHERE diamond_id = $1`, [grandchild.diamond_id]);
    const before = await outboxCount(f);
    const res = await del(producer, [
      { diamond_id: root.diamond_id, delete_descendants: true },
      { diamond_id: child.diamond_id, delete_descendants: true },
    ]);
    for (const r of res.body.results) {
      expect(r).toMatchObject({ status: 'failure', reason: 'descendant_unlocked', descendants: [] });
      expect('detail' in r && r.detail).toContain(grandchild.diamond_id);
    }
    for (const d of [root, child, grandchild]) expect(await exists(d.diamond_id)).toBe(true);
    expect(await outboxCount(f)).toBe(before);
    // The unlocked leaf itself is refused too; its locked parent chain stays.
    expect((await del(producer, [{ diamond_id: grandchild.diamond_id }])).body.results[0]).toMatchObject({ reason: 'unlocked' });
  });

  it('treats each entry in isolation and answers in request order (a repeated id is gone the second time)', async () => {
    const a = await register(f, producer);
    const b = await register(f, producer);
    const locked = await register(f, producer);
    await f.db.query(`UPDATE diamonds SET unlock_status = 'unlocked' WHERE diamond_id = $1`, [locked.diamond_id]);
    const res = await del(producer, [
      { diamond_id: a.diamond_id },
      { diamond_id: locked.diamond_id },
      { diamond_id: a.diamond_id },
      { diamond_id: b.diamond_id },
    ]);
    expect(res.body.results.map((r) => [r.diamond_id, r.status, 'reason' in r ? r.reason : null])).toEqual([
      [a.diamond_id, 'success', null],
      [locked.diamond_id, 'failure', 'unlocked'],
      [a.diamond_id, 'failure', 'not_found'],
      [b.diamond_id, 'success', null],
    ]);
  });

  it('answers 403 to retailers, 401 without a token and 422 for malformed bodies, deleting nothing', async () => {
    const d = await register(f, producer);
    const retailer = await participant(f, 'retailer');
    expect((await del(retailer, [{ diamond_id: d.diamond_id }])).status).toBe(403);
    expect((await del(null, [{ diamond_id: d.diamond_id }])).status).toBe(401);
    const bad: [unknown, string][] = [
      [[], 'body.diamonds'],
      ['x', 'body.diamonds'],
      [[{ diamond_id: d.diamond_id, delete_descendants: 'yes' }], 'body.diamonds.0.delete_descendants'],
      [[{ diamond_id: d.diamond_id, extra: 1 }], 'body.diamonds.0.extra'],
      [[{}], 'body.diamonds.0.diamond_id'],
    ];
    for (const [diamonds, loc] of bad) {
      const res = await call<{ detail: { loc: unknown[] }[] }>(f, 'POST', DELETE, producer.token, { diamonds });
      expect({ loc, status: res.status }).toEqual({ loc, status: 422 });
      expect(res.body.detail.map((x) => x.loc.join('.'))).toContain(loc);
    }
    expect(await exists(d.diamond_id)).toBe(true);
  });

  it('deletes 1,000 diamonds in one request, and refuses 1,001 entries with 422', async () => {
    const maker = await participant(f, 'manufacturer');
    const ids: string[] = [];
    const batch = 25;
    for (let i = 0; i < 1000; i += batch) {
      const made = await Promise.all(Array.from({ length: batch }, () => register(f, maker)));
      ids.push(...made.map((d) => d.diamond_id));
    }
    const tooMany = await call<{ detail: { loc: unknown[]; type: string }[] }>(f, 'POST', DELETE, maker.token, {
      diamonds: [...ids, ids[0]].map((diamond_id) => ({ diamond_id })),
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'diamonds'], type: 'too_long' }));
    expect((await f.db.query(`SELECT count(*)::int AS n FROM diamonds WHERE uploader_id = $1`, [maker.participant_id])).rows[0].n).toBe(1000);

    const before = await outboxCount(f);
    const res = await call<BulkDeleteResponse>(f, 'POST', DELETE, maker.token, { diamonds: ids.map((diamond_id) => ({ diamond_id })) });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1000);
    expect(res.body.results.map((r) => r.diamond_id)).toEqual(ids);
    expect(res.body.results.every((r) => r.status === 'success')).toBe(true);
    expect((await f.db.query(`SELECT count(*)::int AS n FROM diamonds WHERE uploader_id = $1`, [maker.participant_id])).rows[0].n).toBe(0);
    expect(await outboxCount(f)).toBe(before + 2000);
  }, 120_000);
});
