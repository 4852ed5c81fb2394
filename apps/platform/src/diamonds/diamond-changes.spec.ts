import { newDiamondId } from '@dtp/domain';
import { sampleRow } from '../../test/diamond.fixture';
import { caller, newTestService, refusal } from '../../test/test-service';
import type { Tx } from '@dtp/database';

const holder = caller('holder-1', 'manufacturer');

/** A fresh service set with one diamond held by holder-1 (revision 3, custody head 'h3'). */
function withDiamond(over: Parameters<typeof sampleRow>[0] = {}) {
  const t = newTestService();
  const row = sampleRow({ diamond_id: newDiamondId(), holder_id: 'holder-1', uploader_id: 'holder-1', custody_head: 'h3', ...over });
  t.diamonds.seed(row);
  return { t, row };
}

describe('DiamondChanges.loadHeld (in-memory repositories)', () => {
  const opts = { action: 'change it' };

  it('answers 404 for an id that is not even in the id format, and for an unknown one', async () => {
    const { t } = withDiamond();
    for (const id of ['NOT-AN-ID', newDiamondId()]) {
      expect(await refusal(t.changes.loadHeld(t.uow.sql, id, holder, opts))).toEqual({ kind: 'not_found', body: { message: 'diamond not found' } });
    }
  });

  it('answers 403 not_holder naming the action to anyone but the holder', async () => {
    const { t, row } = withDiamond();
    expect(await refusal(t.changes.loadHeld(t.uow.sql, row.diamond_id, caller('other-1'), { action: 'unlock it' }))).toEqual({
      kind: 'forbidden',
      body: { message: `only the holder of diamond ${row.diamond_id} may unlock it`, reason: 'not_holder' },
    });
  });

  it('answers 409 in_transit for a change of a diamond in a shipment, but lets the holder read it', async () => {
    const { t, row } = withDiamond({ possession_state: 'in_transit' });
    const r = await refusal(t.changes.loadHeld(t.uow.sql, row.diamond_id, holder, opts));
    expect(r.kind).toBe('conflict');
    expect(r.body.reason).toBe('in_transit');
    expect((await t.changes.loadHeld(t.uow.sql, row.diamond_id, holder, { ...opts, readOnly: true })).diamond_id).toBe(row.diamond_id);
  });
});

describe('DiamondChanges.commit (in-memory repositories)', () => {
  it('writes the patch as a new version: revision + 1, a new version_id, a custody entry linked to the previous one, one event', async () => {
    const { t, row } = withDiamond();
    const now = new Date('2024-05-01T00:00:00Z');
    const record = await t.uow.run((tx: Tx) => t.changes.commit(tx, row, { unlock_status: 'unlocked' }, { action: 'unlocked', actor: 'holder-1' }, now));

    const stored = t.diamonds.get(row.diamond_id)!;
    expect(stored).toMatchObject({ unlock_status: 'unlocked', revision: 4, system_timestamp: now });
    expect(stored.version_id).not.toBe(row.version_id);
    expect(record).toMatchObject({ diamond_id: row.diamond_id, version_id: stored.version_id, unlock_status: 'unlocked' });
    expect(t.diamonds.entries.map((e) => e.entry)).toEqual([
      expect.objectContaining({
        diamond_id: row.diamond_id,
        version_id: stored.version_id,
        action: 'unlocked',
        actor_participant_id: 'holder-1',
        prev_entry_hash: 'h3',
      }),
    ]);
    expect(stored.custody_head).toBe(t.diamonds.entries[0].entry_hash);
    expect(t.diamonds.events.map((e) => [e.eventType, e.key, e.revision])).toEqual([['diamond.upserted', row.diamond_id, 4]]);
    expect((t.diamonds.events[0].payload as { data: unknown }).data).toEqual(record);
  });

  it('writes only the patched columns and the bookkeeping ones (a stale copy of other columns is not written back)', async () => {
    const { t, row } = withDiamond();
    await t.uow.run((tx: Tx) =>
      t.changes.commit(tx, { ...row, box_description: 'stale copy' }, { unlock_status: 'unlocked' }, { action: 'unlocked', actor: 'holder-1' }),
    );
    expect(t.diamonds.get(row.diamond_id)!.box_description).toBe(row.box_description);
  });

  it("shows the diamond's active graded measurement in the new record", async () => {
    const { t, row } = withDiamond();
    const at = new Date(0);
    t.graded.rows.push({
      id: 'g-1',
      diamond_id: row.diamond_id,
      source: 'gis',
      is_active: true,
      is_selectable: true,
      data: { carats: '1.01', shape: 'Round' },
      created_by: null,
      created_at: at,
      updated_at: at,
      held_back_at: null,
    });
    const record = await t.uow.run((tx: Tx) => t.changes.commit(tx, row, {}, { action: 'grading_selected', actor: 'holder-1' }));
    expect(record.grading).toEqual([{ carats: '1.01', shape: 'Round', id: 'g-1', is_active: true, is_selectable: true, source: 'gis' }]);
  });

  it('commitMany makes one new version per diamond, each entry linked to its own previous one, records in the given order', async () => {
    const t = newTestService();
    const a = sampleRow({ diamond_id: newDiamondId(), holder_id: 'holder-1', revision: '7', custody_head: 'ha', participant_id: 'A' });
    const b = sampleRow({ diamond_id: newDiamondId(), holder_id: 'holder-1', revision: '2', custody_head: 'hb', participant_id: 'B' });
    t.diamonds.seed(a, b);
    const records = await t.uow.run((tx: Tx) =>
      t.changes.commitMany(
        tx,
        [b, a],
        () => ({ possession_state: 'in_transit' }),
        (r) => ({ action: 'shipped', actor: r.holder_id }),
      ),
    );
    expect(records.map((r) => r.diamond_id)).toEqual([b.diamond_id, a.diamond_id]);
    expect([t.diamonds.get(a.diamond_id)!.revision, t.diamonds.get(b.diamond_id)!.revision]).toEqual([8, 3]);
    expect(t.diamonds.entries.map((e) => [e.entry.diamond_id, e.entry.prev_entry_hash])).toEqual([
      [b.diamond_id, 'hb'],
      [a.diamond_id, 'ha'],
    ]);
    expect(t.diamonds.events.map((e) => [e.key, e.revision])).toEqual([
      [b.diamond_id, 3],
      [a.diamond_id, 8],
    ]);
  });
});
