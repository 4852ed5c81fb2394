import { DeletionRequest, ForestNode, planDeletion, plannedIds } from './deletion-plan';

const ME = 'p-me';
const OTHER = 'p-other';
const id = (n: string) => `01h${n.padEnd(23, '0')}`; // 26 lowercase alphanumerics: a diamond id

function node(n: string, over: Partial<ForestNode> = {}): ForestNode {
  return {
    diamond_id: id(n),
    diamond_parent_id: null,
    participant_id: `ref-${n}`,
    uploader_id: ME,
    unlock_status: 'locked',
    possession_state: 'held',
    revision: '1',
    custody_head: `head-${n}`,
    ...over,
  };
}
const child = (n: string, parent: string, over: Partial<ForestNode> = {}) => node(n, { diamond_parent_id: id(parent), ...over });
const req = (n: string, withDescendants = false): DeletionRequest => ({ diamondId: id(n), withDescendants });
const reasons = (forest: ForestNode[], requests: DeletionRequest[]) =>
  planDeletion(ME, requests, forest).results.map((r) => (r.status === 'success' ? 'success' : r.reason));

describe('planDeletion', () => {
  it('answers not_found for malformed and unknown ids, not_owner with a null participant_id, and plans nothing for them', () => {
    const plan = planDeletion(ME, [{ diamondId: 'NOT-AN-ID', withDescendants: false }, req('zz'), req('a')], [node('a', { uploader_id: OTHER })]);
    expect(plan.results).toEqual([
      { diamond_id: 'NOT-AN-ID', participant_id: null, status: 'failure', reason: 'not_found', detail: 'diamond NOT-AN-ID not found', descendants: [] },
      { diamond_id: id('zz'), participant_id: null, status: 'failure', reason: 'not_found', detail: `diamond ${id('zz')} not found`, descendants: [] },
      {
        diamond_id: id('a'),
        participant_id: null,
        status: 'failure',
        reason: 'not_owner',
        detail: `only the participant that uploaded diamond ${id('a')} may delete it`,
        descendants: [],
      },
    ]);
    expect(plan.subtrees).toEqual([]);
  });

  it('checks not_owner before in_transit before unlocked, and those before descendants', () => {
    const forest = [
      node('a', { uploader_id: OTHER, possession_state: 'in_transit', unlock_status: 'unlocked' }),
      node('b', { possession_state: 'in_transit', unlock_status: 'unlocked' }),
      node('c', { unlock_status: 'unlocked' }),
      child('c1', 'c', { unlock_status: 'unlocked' }),
    ];
    expect(reasons(forest, [req('a'), req('b'), req('c')])).toEqual(['not_owner', 'in_transit', 'unlocked']);
    expect(planDeletion(ME, [req('b')], forest).results[0]).toMatchObject({ participant_id: 'ref-b' });
  });

  it("answers has_descendants without delete_descendants whatever the descendants' state, and the descendants' reasons with it", () => {
    const forest = [
      node('a'),
      child('a1', 'a', { unlock_status: 'unlocked' }),
      node('b'),
      child('b1', 'b'),
      child('b2', 'b1', { possession_state: 'in_transit' }),
    ];
    expect(reasons(forest, [req('a'), req('b')])).toEqual(['has_descendants', 'has_descendants']);
    const plan = planDeletion(ME, [req('a', true), req('b', true)], forest);
    expect(plan.results).toMatchObject([
      { status: 'failure', reason: 'descendant_unlocked', detail: expect.stringContaining(id('a1')) },
      { status: 'failure', reason: 'in_transit', detail: expect.stringContaining(id('b2')) },
    ]);
    expect(plan.subtrees).toEqual([]);
  });

  it('names the first stopping descendant by depth, then id; unlocked wins over in_transit', () => {
    const forest = [
      node('a'),
      child('a2', 'a', { possession_state: 'in_transit' }),
      child('a1', 'a'),
      child('a11', 'a1', { unlock_status: 'unlocked' }),
      child('a3', 'a', { unlock_status: 'unlocked' }),
    ];
    expect(planDeletion(ME, [req('a', true)], forest).results[0]).toMatchObject({ reason: 'descendant_unlocked', detail: expect.stringContaining(id('a3')) });
    const moving = [node('a'), child('a2', 'a', { possession_state: 'in_transit' }), child('a1', 'a'), child('a11', 'a1', { possession_state: 'in_transit' })];
    expect(planDeletion(ME, [req('a', true)], moving).results[0]).toMatchObject({ reason: 'in_transit', detail: expect.stringContaining(id('a2')) });
  });

  it('deletes a whole subtree, listing descendants by depth then id, members root first', () => {
    const forest = [child('a2', 'a'), child('a11', 'a1'), node('a'), child('a1', 'a'), node('b')];
    const plan = planDeletion(ME, [req('a', true), req('b')], forest);
    expect(plan.results).toEqual([
      { diamond_id: id('a'), participant_id: 'ref-a', status: 'success', descendants: [id('a1'), id('a2'), id('a11')] },
      { diamond_id: id('b'), participant_id: 'ref-b', status: 'success', descendants: [] },
    ]);
    expect(plannedIds(plan)).toEqual([id('a'), id('a1'), id('a2'), id('a11'), id('b')]);
    expect(plan.subtrees.map((s) => s.rootId)).toEqual([id('a'), id('b')]);
  });

  it('decides entries in request order, as if each ran after the ones before it', () => {
    const forest = [node('a'), child('a1', 'a')];
    // The child first: then the parent has no descendant left and goes on its own.
    const childFirst = planDeletion(ME, [req('a1'), req('a')], forest);
    expect(childFirst.results.map((r) => r.status)).toEqual(['success', 'success']);
    expect(childFirst.results[1]).toMatchObject({ descendants: [] });
    // The parent with its subtree first: the child is gone by the time its own entry comes, and so is a repeat.
    expect(reasons(forest, [req('a', true), req('a1'), req('a')])).toEqual(['success', 'not_found', 'not_found']);
    // A failing entry changes nothing for the ones after it.
    expect(reasons(forest, [req('a'), req('a1'), req('a')])).toEqual(['has_descendants', 'success', 'success']);
  });

  it('ignores a parent link that loops (never hangs) and plans disjoint subtrees only', () => {
    const forest = [node('a', { diamond_parent_id: id('b') }), child('b', 'a')];
    const plan = planDeletion(ME, [req('a', true), req('b', true)], forest);
    expect(plan.results.map((r) => r.status)).toEqual(['success', 'failure']);
    expect(plannedIds(plan)).toEqual([id('a'), id('b')]);
  });
});
