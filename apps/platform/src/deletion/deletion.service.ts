import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import {
  BulkDeleteEntryDto,
  BulkDeleteResponse,
  DeleteFailureEntry,
  DeleteFailureReason,
  DeleteResultEntry,
  isDiamondId,
} from '@dtp/domain';
import { outboxInsert } from '@dtp/events';
import { PG_DEADLOCK_DETECTED, PG_FOREIGN_KEY_VIOLATION, pgErrorCode, Tx, UnitOfWork } from '@dtp/database';
import { custodyInsert, deletionEntry } from '../custody/custody-entry';
import { diamondDeleted } from '../diamonds/diamond-events';
import { DiamondsRepository, SubtreeMember } from '../diamonds/diamonds.repository';
import { ShipmentsRepository } from '../shipments/shipments.repository';

const ATTEMPTS = 3;

function failure(diamondId: string, participantId: string | null, reason: DeleteFailureReason, detail: string): DeleteFailureEntry {
  return { diamond_id: diamondId, participant_id: participantId, status: 'failure', reason, detail, descendants: [] };
}

/**
 * Bulk deletion (spec "Deletion"): each entry on its own, in its own transaction; a diamond and (on request) its
 * whole subtree go together or not at all. Permanent: rows are deleted (graded measurements with them) and each
 * removed diamond gets a `diamond.deleted` event plus a tombstone.
 *
 * Reasons, checked in this order (DESIGN.md "Platform"): `not_found` (no such diamond), `not_owner` (it exists
 * but the caller did not upload it; the entry's participant_id stays null, since it is the uploader's own
 * reference), `in_transit`, `unlocked`, then for a diamond with descendants: `has_descendants` when
 * delete_descendants is false, whatever state the descendants are in; otherwise `descendant_unlocked` or
 * `in_transit` for the first descendant that stops the subtree. Nothing is deleted on any failure.
 */
@Injectable()
export class DeletionService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly shipments: ShipmentsRepository,
  ) {}

  async deleteMany(caller: Caller, entries: BulkDeleteEntryDto[]): Promise<BulkDeleteResponse> {
    const results: DeleteResultEntry[] = [];
    for (const entry of entries) results.push(await this.deleteOne(caller, entry.diamond_id, entry.delete_descendants === true));
    return { results };
  }

  async deleteOne(caller: Caller, diamondId: string, withDescendants: boolean): Promise<DeleteResultEntry> {
    if (!isDiamondId(diamondId)) return failure(diamondId, null, 'not_found', `diamond ${diamondId} not found`);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.run((sql) => this.attempt(sql, caller, diamondId, withDescendants));
      } catch (err) {
        // A child created under a descendant while we worked (FK), or a lock cycle with a concurrent change: the
        // transaction rolled back completely, so trying again is safe.
        const code = pgErrorCode(err);
        if (attempt < ATTEMPTS && (code === PG_FOREIGN_KEY_VIOLATION || code === PG_DEADLOCK_DETECTED)) continue;
        throw err;
      }
    }
  }

  private async attempt(sql: Tx, caller: Caller, diamondId: string, withDescendants: boolean): Promise<DeleteResultEntry> {
    const me = caller.participantId;
    const root = await this.diamonds.find(sql, diamondId, { lock: true });
    if (!root) return failure(diamondId, null, 'not_found', `diamond ${diamondId} not found`);
    if (root.uploader_id !== me) {
      return failure(diamondId, null, 'not_owner', `only the participant that uploaded diamond ${diamondId} may delete it`);
    }
    const pid = root.participant_id;
    if (root.possession_state === 'in_transit') {
      return failure(diamondId, pid, 'in_transit', 'the diamond is in a shipment that has not been answered; it cannot be deleted');
    }
    if (root.unlock_status === 'unlocked') {
      return failure(diamondId, pid, 'unlocked', 'the diamond is unlocked; unlocked diamonds cannot be deleted');
    }
    let tree: SubtreeMember[] = await this.diamonds.subtree(sql, diamondId);
    if (tree.length > 1) {
      await this.diamonds.lockMany(sql, tree.slice(1).map((d) => d.diamond_id));
      tree = await this.diamonds.subtree(sql, diamondId); // as of the locks
    }
    const descendants = tree.filter((d) => d.depth > 0);
    if (descendants.length > 0 && !withDescendants) {
      return failure(
        diamondId,
        pid,
        'has_descendants',
        `the diamond has ${descendants.length} descendant(s); set delete_descendants to true to delete them together`,
      );
    }
    const unlocked = descendants.find((d) => d.unlock_status === 'unlocked');
    if (unlocked) {
      return failure(diamondId, pid, 'descendant_unlocked', `descendant ${unlocked.diamond_id} is unlocked; a diamond with an unlocked descendant cannot be deleted`);
    }
    const moving = descendants.find((d) => d.possession_state === 'in_transit');
    if (moving) {
      return failure(diamondId, pid, 'in_transit', `descendant ${moving.diamond_id} is in a shipment that has not been answered`);
    }
    const ids = tree.map((d) => d.diamond_id);
    // Diamonds registered against a shipment give their place back, so a corrected one can be registered again.
    await this.shipments.releaseRegistrations(sql, await this.diamonds.registrationsByBox(sql, ids));
    const deleted = await this.diamonds.deleteMany(sql, ids);
    if (deleted !== ids.length) throw new Error(`deleted ${deleted} of ${ids.length} diamonds in the subtree of ${diamondId}`);
    const now = new Date();
    // Each removed diamond's `deleted` custody entry (the log keeps it) and its events, in one statement.
    const custody = custodyInsert(tree.map((d) => deletionEntry(d.diamond_id, me, d.custody_head, now)));
    const outbox = outboxInsert(tree.flatMap((d) => diamondDeleted(d.diamond_id, Number(d.revision) + 1, now)), custody.values.length + 1);
    await sql.query(`WITH e AS (${custody.sql}) ${outbox.sql}`, [...custody.values, ...outbox.values]);
    return { diamond_id: diamondId, participant_id: pid, status: 'success', descendants: descendants.map((d) => d.diamond_id) };
  }
}
