import { entryHash, entryMembers, type CustodyEntry } from '@dtp/domain';
import { verifyCustody } from '../src';
import { clone, newKey, SigningKey, SyntheticLog } from './synthetic-log';

const MINE_1 = 'm0000000000000000000001';
const MINE_2 = 'm0000000000000000000002';
const BOXED = 'b0000000000000000000001';
const CUT = 'c0000000000000000000001';

/**
 * `links` (DESIGN.md "Provenance"): a registration against a shipment links the shipped diamonds' latest entries.
 * Entries written before the member existed have none, keep their hashes, and verify next to new ones.
 */
describe('custody links', () => {
  let key: SigningKey;
  let log: SyntheticLog;
  beforeAll(async () => {
    key = await newKey('links-key');
    log = new SyntheticLog();
    // An "old" part of the log: written before links existed (no member at all).
    log.change(MINE_1, 'registered', { fields: { provenance: { country_code: 'BW' } } });
    log.change(MINE_2, 'registered', { fields: { provenance: { country_code: 'CA' } } });
    log.change(MINE_1, 'shipped');
    log.change(MINE_2, 'shipped');
    const a1 = log.change(MINE_1, 'accepted');
    const a2 = log.change(MINE_2, 'accepted');
    // New: the manufacturer's registration against the accepted shipment, then a polish.
    log.change(BOXED, 'registered', { links: [a2.entry_hash, a1.entry_hash] });
    log.change(BOXED, 'polished');
    log.change(CUT, 'registered', { parent: BOXED });
    log.change(CUT, 'grading_selected');
  });

  it('an entry without links hashes exactly as before the member existed; null or empty links are no member', () => {
    const old: CustodyEntry = {
      diamond_id: '01j0k6v8m2x4c9d7f3h5n1p0qr',
      version_id: '01j0k6v8m2x4c9d7f3h5n1p000',
      action: 'registered',
      actor_participant_id: '3b241101-e2bb-4255-8caf-4136c566a962',
      occurred_at: '2024-05-01T10:00:00.000Z',
      record_sha256: 'a'.repeat(64),
      prev_entry_hash: null,
    };
    // Computed before `links` was introduced (the JCS of the seven members).
    const before = 'ba64f6d809831453bc3ee26012bd27091dd2175f3a95613623e19d11c23769cb';
    expect(entryHash(old)).toBe(before);
    expect(entryHash(entryMembers(old))).toBe(before);
    expect(entryHash(entryMembers({ ...old, links: null }))).toBe(entryHash(old));
    expect(entryHash(entryMembers({ ...old, links: [] }))).toBe(entryHash(old));
    expect('links' in entryMembers({ ...old, links: null })).toBe(false);
    const linked = entryMembers({ ...old, links: ['b'.repeat(64)] });
    expect(linked.links).toEqual(['b'.repeat(64)]);
    expect(entryHash(linked)).not.toBe(entryHash(old));
  });

  it("old entries (no links) and new ones (links) verify together: the polished stone's chain reaches both mines", async () => {
    const answer = await log.answer(CUT, key);
    expect(answer.entries.map((e) => e.entry.diamond_id)).toEqual([MINE_1, MINE_2, MINE_1, MINE_2, MINE_1, MINE_2, BOXED, BOXED, CUT, CUT]);
    const result = await verifyCustody(answer, { diamondId: CUT, keys: { keys: [key.publicJwk] }, record: log.record(CUT) });
    expect(result).toMatchObject({ ok: true, record: 'matched', entries: 10 });
  });

  it('a missing linked entry, a link to a later leaf, unsorted links and links on another action fail, naming the entry', async () => {
    const keys = { keys: [key.publicJwk] };
    const answer = await log.answer(CUT, key);
    const missing = clone(answer);
    missing.entries.splice(4, 1); // MINE_1's acceptance
    const r1 = await verifyCustody(missing, { diamondId: CUT, keys });
    expect(r1).toMatchObject({ ok: false, failure: { code: 'chain', leaf_index: 6 } });
    if (!r1.ok) expect(r1.failure.message).toMatch(/links to shipped diamond entry [0-9a-f]{64}, which the answer does not have/);

    const unsorted = clone(answer);
    unsorted.entries[6].entry.links!.reverse();
    const r2 = await verifyCustody(unsorted, { diamondId: CUT, keys });
    expect(r2).toMatchObject({ ok: false, failure: { code: 'format', leaf_index: 6 } });
    if (!r2.ok) expect(r2.failure.message).toContain('entries[6].entry.links is not sorted and distinct');

    const onOther = clone(answer);
    onOther.entries[7].entry.links = [answer.entries[0].entry_hash];
    const r3 = await verifyCustody(onOther, { diamondId: CUT, keys });
    expect(r3).toMatchObject({ ok: false, failure: { code: 'format', leaf_index: 7 } });
    if (!r3.ok) expect(r3.failure.message).toContain('only a registration links to a shipment');

    const extra = clone(answer);
    extra.entries[6].entry.links = [];
    const r4 = await verifyCustody(extra, { diamondId: CUT, keys });
    expect(r4).toMatchObject({ ok: false, failure: { code: 'format' } });
  });
});
