import { DeleteFailureEntry, DeleteFailureReason, DeleteResultEntry, isDiamondId, PossessionState, UnlockStatus } from '@dtp/domain';

/** One requested entry: the diamond and whether its descendants go with it. */
export interface DeletionRequest {
  diamondId: string;
  withDescendants: boolean;
}

/** What planning needs of a diamond: the requested ones and all their descendants, as read in one statement. */
export interface ForestNode {
  diamond_id: string;
  diamond_parent_id: string | null;
  participant_id: string | null;
  uploader_id: string;
  unlock_status: UnlockStatus;
  possession_state: PossessionState;
  revision: string;
  custody_head: string | null;
}

/** An entry that succeeds: its diamond first, then its descendants by depth, then id (what the response lists). */
export interface PlannedSubtree {
  rootId: string;
  members: ForestNode[];
}

export interface DeletionPlan {
  /** One per requested entry, in request order. */
  results: DeleteResultEntry[];
  /** The subtrees to delete, in request order; their members are disjoint. */
  subtrees: PlannedSubtree[];
}

function failure(diamondId: string, participantId: string | null, reason: DeleteFailureReason, detail: string): DeleteFailureEntry {
  return { diamond_id: diamondId, participant_id: participantId, status: 'failure', reason, detail, descendants: [] };
}

/**
 * Plans a bulk deletion from one read of the requested diamonds and their descendants (`forest`), with no query of
 * its own: the answer for every entry, and the subtrees to delete.
 *
 * The entries are decided in request order as if each ran on its own after the ones before it: a diamond that an
 * earlier entry deletes (itself, or as a descendant) is `not_found` later, and no longer counts as a descendant.
 * Reasons, checked in this order (DESIGN.md "Platform"): `not_found` (malformed or unknown id), `not_owner` (the
 * caller did not upload it; participant_id stays null, it is the uploader's own reference), `in_transit`,
 * `unlocked`, then for a diamond with descendants: `has_descendants` when delete_descendants is false whatever the
 * descendants' state, otherwise `descendant_unlocked` or `in_transit` for the first descendant (by depth, then id)
 * that stops the subtree. A failing entry deletes nothing.
 */
export function planDeletion(callerId: string, requests: readonly DeletionRequest[], forest: readonly ForestNode[]): DeletionPlan {
  const nodes = new Map<string, ForestNode>();
  const children = new Map<string, ForestNode[]>();
  for (const n of forest) nodes.set(n.diamond_id, n);
  for (const n of nodes.values()) {
    if (n.diamond_parent_id === null) continue;
    const siblings = children.get(n.diamond_parent_id);
    if (siblings) siblings.push(n);
    else children.set(n.diamond_parent_id, [n]);
  }
  const gone = new Set<string>();
  const results: DeleteResultEntry[] = [];
  const subtrees: PlannedSubtree[] = [];

  for (const { diamondId, withDescendants } of requests) {
    const root = isDiamondId(diamondId) && !gone.has(diamondId) ? nodes.get(diamondId) : undefined;
    if (!root) {
      results.push(failure(diamondId, null, 'not_found', `diamond ${diamondId} not found`));
      continue;
    }
    if (root.uploader_id !== callerId) {
      results.push(failure(diamondId, null, 'not_owner', `only the participant that uploaded diamond ${diamondId} may delete it`));
      continue;
    }
    const pid = root.participant_id;
    if (root.possession_state === 'in_transit') {
      results.push(failure(diamondId, pid, 'in_transit', 'the diamond is in a shipment that has not been answered; it cannot be deleted'));
      continue;
    }
    if (root.unlock_status === 'unlocked') {
      results.push(failure(diamondId, pid, 'unlocked', 'the diamond is unlocked; unlocked diamonds cannot be deleted'));
      continue;
    }
    const descendants = descendantsOf(root.diamond_id, children, gone);
    if (descendants.length > 0 && !withDescendants) {
      results.push(
        failure(
          diamondId,
          pid,
          'has_descendants',
          `the diamond has ${descendants.length} descendant(s); set delete_descendants to true to delete them together`,
        ),
      );
      continue;
    }
    const unlocked = descendants.find((d) => d.unlock_status === 'unlocked');
    if (unlocked) {
      results.push(
        failure(
          diamondId,
          pid,
          'descendant_unlocked',
          `descendant ${unlocked.diamond_id} is unlocked; a diamond with an unlocked descendant cannot be deleted`,
        ),
      );
      continue;
    }
    const moving = descendants.find((d) => d.possession_state === 'in_transit');
    if (moving) {
      results.push(failure(diamondId, pid, 'in_transit', `descendant ${moving.diamond_id} is in a shipment that has not been answered`));
      continue;
    }
    const members = [root, ...descendants];
    for (const m of members) gone.add(m.diamond_id);
    subtrees.push({ rootId: root.diamond_id, members });
    results.push({ diamond_id: diamondId, participant_id: pid, status: 'success', descendants: descendants.map((d) => d.diamond_id) });
  }
  return { results, subtrees };
}

/** The descendants of `rootId` still there, level by level, each level in id order (the order of `depth, diamond_id`). */
function descendantsOf(rootId: string, children: Map<string, ForestNode[]>, gone: Set<string>): ForestNode[] {
  const out: ForestNode[] = [];
  const seen = new Set<string>([rootId]);
  let level = [rootId];
  while (level.length > 0) {
    const next: ForestNode[] = [];
    for (const id of level) {
      for (const c of children.get(id) ?? []) {
        if (gone.has(c.diamond_id) || seen.has(c.diamond_id)) continue;
        seen.add(c.diamond_id);
        next.push(c);
      }
    }
    next.sort((a, b) => (a.diamond_id < b.diamond_id ? -1 : a.diamond_id > b.diamond_id ? 1 : 0));
    out.push(...next);
    level = next.map((n) => n.diamond_id);
  }
  return out;
}

/** Every diamond the plan deletes, in plan order. */
export function plannedIds(plan: DeletionPlan): string[] {
  return plan.subtrees.flatMap((s) => s.members.map((m) => m.diamond_id));
}
