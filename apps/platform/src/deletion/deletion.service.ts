import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { BulkDeleteEntryDto, BulkDeleteResponse, isDiamondId, ParticipantEventTypes } from '@dtp/domain';
import { outboxInsert } from '@dtp/events';
import { PG_DEADLOCK_DETECTED, PG_FOREIGN_KEY_VIOLATION, pgErrorCode, Sql, Tx, UnitOfWork } from '@dtp/database';
import { custodyInsert, deletionEntry } from '../custody/custody-entry';
import { diamondDeleted } from '../diamonds/diamond-events';
import { participantEvent, participantEventsCtes } from '../webhooks/participant-events';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { ShipmentsRepository } from '../shipments/shipments.repository';
import { DeletionPlan, DeletionRequest, ForestNode, planDeletion, plannedIds } from './deletion-plan';

const ATTEMPTS = 3;
/** Diamonds per statement when writing (21 parameters each for custody entry + two outbox rows; PG allows 65,535). */
const WRITE_CHUNK = 1000;

/**
 * Bulk deletion (spec "Deletion"): each entry on its own; a diamond and (on request) its whole subtree go together
 * or not at all. Permanent: rows are deleted (graded measurements with them) and each removed diamond gets a
 * `diamond.deleted` event plus a tombstone. Reasons and their precedence: `planDeletion`.
 *
 * Set-based, whatever the number of entries: one read of every requested diamond and its descendants plans the
 * whole request. Entries that fail are answered from that read (what was true when it ran); when none succeeds,
 * that is all (no transaction, no lock). Otherwise ONE transaction locks the planned subtrees (FOR UPDATE, id order),
 * plans again from a read made under the locks (a diamond that changed meanwhile is decided on its new state; a
 * descendant that appeared meanwhile is locked in turn) and deletes every planned subtree with a few statements.
 * Each entry is still all or nothing: every check runs, under the locks, before anything is written, and a
 * database error rolls the whole transaction back (nothing of any entry is deleted).
 */
@Injectable()
export class DeletionService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly shipments: ShipmentsRepository,
  ) {}

  async deleteMany(caller: Caller, entries: BulkDeleteEntryDto[]): Promise<BulkDeleteResponse> {
    const requests: DeletionRequest[] = entries.map((e) => ({ diamondId: e.diamond_id, withDescendants: e.delete_descendants === true }));
    const roots = [...new Set(requests.map((r) => r.diamondId).filter(isDiamondId))];
    const me = caller.participantId;
    const first = planDeletion(me, requests, roots.length > 0 ? await readForest(this.uow.sql, roots) : []);
    if (first.subtrees.length === 0) return { results: first.results };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.uow.run(async (sql) => ({ results: (await this.deleteLocked(sql, me, requests, roots, first)).results }));
      } catch (err) {
        // A child created under a descendant while we worked (FK), or a lock cycle with a concurrent change: the
        // transaction rolled back completely, so trying again is safe.
        const code = pgErrorCode(err);
        if (attempt < ATTEMPTS && (code === PG_FOREIGN_KEY_VIOLATION || code === PG_DEADLOCK_DETECTED)) continue;
        throw err;
      }
    }
  }

  /** Locks what `plan` deletes, plans again under the locks until nothing unlocked is planned, then deletes it. */
  private async deleteLocked(sql: Tx, me: string, requests: DeletionRequest[], roots: string[], initial: DeletionPlan): Promise<DeletionPlan> {
    const locked = new Set<string>();
    let plan = initial;
    for (;;) {
      const wanted = plannedIds(plan).filter((id) => !locked.has(id));
      if (wanted.length === 0) break;
      await this.diamonds.lockMany(sql, wanted);
      for (const id of wanted) locked.add(id); // or gone meanwhile: then the next read does not have it
      plan = planDeletion(me, requests, await readForest(sql, roots));
    }
    const ids = plannedIds(plan);
    if (ids.length === 0) return plan;
    // Diamonds registered against a shipment give their place back, so a corrected one can be registered again.
    await this.shipments.releaseRegistrations(sql, await this.diamonds.registrationsByBox(sql, ids));
    let deleted = 0;
    for (let i = 0; i < ids.length; i += WRITE_CHUNK) deleted += await this.diamonds.deleteMany(sql, ids.slice(i, i + WRITE_CHUNK));
    if (deleted !== ids.length) throw new Error(`deleted ${deleted} of ${ids.length} planned diamonds`);
    // Each removed diamond's `deleted` custody entry (the log keeps it) and its events, in request order.
    const now = new Date();
    const members = plan.subtrees.flatMap((s) => s.members);
    for (let i = 0; i < members.length; i += WRITE_CHUNK) {
      const chunk = members.slice(i, i + WRITE_CHUNK);
      const custody = custodyInsert(chunk.map((d) => deletionEntry(d.diamond_id, me, d.custody_head, now)));
      const outbox = outboxInsert(
        chunk.flatMap((d) => diamondDeleted(d.diamond_id, Number(d.revision) + 1, now)),
        custody.values.length + 1,
      );
      // dtp.diamond.deleted for the uploader (only a locked diamond is deleted: one never transferred, held by its uploader).
      const notices = participantEventsCtes(
        chunk.map((d) => participantEvent(d.uploader_id, ParticipantEventTypes.DIAMOND_DELETED, d.diamond_id, { diamond_id: d.diamond_id }, now)),
        custody.values.length + outbox.values.length + 1,
      );
      await sql.query(`WITH e AS (${custody.sql}), ${notices.sql} ${outbox.sql}`, [...custody.values, ...outbox.values, ...notices.values]);
    }
    return plan;
  }
}

// raw SQL: a recursive query over many roots at once (the deletion planner's one read).
/** The given diamonds (those that exist) and all their descendants, with what planning needs of each. */
export async function readForest(sql: Sql, rootIds: string[]): Promise<ForestNode[]> {
  return sql.rows<ForestNode>(
    `WITH RECURSIVE t AS (
       SELECT diamond_id, diamond_parent_id, participant_id, uploader_id, unlock_status, possession_state, revision, custody_head
         FROM diamonds WHERE diamond_id = ANY($1::text[])
       UNION
       SELECT c.diamond_id, c.diamond_parent_id, c.participant_id, c.uploader_id, c.unlock_status, c.possession_state, c.revision, c.custody_head
         FROM diamonds c JOIN t ON c.diamond_parent_id = t.diamond_id
     )
     SELECT * FROM t`,
    [rootIds],
  );
}
