import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import { ConflictError, CreatePolishedDiamondDto, DestroyDiamondDto, DiamondV1, SplitDiamondDto, toDecimal } from '@dtp/domain';
import { Decimal } from 'decimal.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, Sql, Tx, UnitOfWork } from '@dtp/database';
import { DiamondChanges, insertNewDiamond } from '../diamonds/diamond-changes';
import { DiamondRow } from '../diamonds/diamond.entity';
import { DiamondsRepository } from '../diamonds/diamonds.repository';
import { assertTransition } from './lifecycle-errors';
import { newChildRow, polishedFromSchema, roughFromSchema } from './lifecycle-rows';

/** The answer of a split: the parent (now `split`) and its cuts in request order. */
export interface SplitResult {
  parent: DiamondV1;
  cuts: DiamondV1[];
}

/**
 * Manufacturing moves of a rough diamond the caller (a manufacturer) holds, not in transit: polish (a polished
 * child), split (rough cuts), destroy. The parent row is locked FOR UPDATE, the move is checked against the
 * domain's LIFECYCLE_TRANSITIONS (409 `illegal_transition` otherwise), and parent and children are written with
 * their own `diamond.upserted` events in one transaction.
 */
@Injectable()
export class LifecycleService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly diamonds: DiamondsRepository,
    private readonly changes: DiamondChanges,
  ) {}

  async polish(caller: Caller, dto: CreatePolishedDiamondDto): Promise<DiamondV1> {
    const now = new Date();
    return this.tx(async (sql) => {
      const parent = await this.changes.loadHeld(sql, dto.parent_diamond_id, caller, { action: 'polish it', lock: true });
      assertTransition(parent, 'polished');
      const polished = polishedFromSchema(dto.polished);
      checkWeight(parent, toDecimal(polished.carats!), 'polished_exceeds_parent_weight', 'the polished diamond');
      const polishedParent = await this.changes.commitChange(
        sql,
        parent,
        { lifecycle_state: 'polished', participant_timestamp: dto.participant_timestamp },
        { action: 'polished', actor: caller.participantId },
        now,
      );
      const child = newChildRow(
        parent,
        caller,
        {
          participantId: dto.participant_id,
          participantTimestamp: dto.participant_timestamp,
          stage: 'polished',
          // The rough it was cut from travels with it (search shows the rough and polished data of one stone).
          rough: parent.rough,
          polished,
          entitySpecificTags: dto.entity_specific_tags ?? null,
          supplementaryTags: dto.supplementary_tags ?? null,
        },
        now,
      );
      // The child's chain starts at its parent's entry made just before (a polished stone's chain reaches its mine).
      return this.insert(sql, child, caller, polishedParent.entryHash, now);
    });
  }

  async split(caller: Caller, diamondId: string, dto: SplitDiamondDto, received: Date = new Date()): Promise<SplitResult> {
    const now = new Date();
    // Not given: the time the platform received the request (DESIGN.md "Lifecycle").
    const splitAt = dto.participant_timestamp ?? received.toISOString();
    return this.tx(async (sql) => {
      const parent = await this.changes.loadHeld(sql, diamondId, caller, { action: 'split it', lock: true });
      assertTransition(parent, 'split');
      const roughs = dto.cuts.map((c) => roughFromSchema(c.rough));
      const total = roughs.reduce((sum, r) => sum.plus(toDecimal(r.carats!)), new Decimal(0));
      checkWeight(parent, total, 'cuts_exceed_parent_weight', `the ${roughs.length} cuts together`);
      const { record, entryHash } = await this.changes.commitChange(
        sql,
        parent,
        { lifecycle_state: 'split', participant_timestamp: splitAt },
        { action: 'split', actor: caller.participantId },
        now,
      );
      const cuts: DiamondV1[] = [];
      for (const [i, cut] of dto.cuts.entries()) {
        const child = newChildRow(
          parent,
          caller,
          {
            participantId: cut.participant_id,
            participantTimestamp: cut.participant_timestamp ?? splitAt,
            stage: 'rough',
            rough: roughs[i],
            polished: {},
          },
          now,
        );
        cuts.push(await this.insert(sql, child, caller, entryHash, now));
      }
      return { parent: record, cuts };
    });
  }

  async destroy(caller: Caller, diamondId: string, dto: DestroyDiamondDto): Promise<DiamondV1> {
    return this.tx(async (sql) => {
      const row = await this.changes.loadHeld(sql, diamondId, caller, { action: 'destroy it', lock: true });
      assertTransition(row, 'destroyed');
      return this.changes.commit(
        sql,
        row,
        {
          lifecycle_state: 'destroyed',
          ...(dto.participant_timestamp ? { participant_timestamp: dto.participant_timestamp } : {}),
        },
        { action: 'destroyed', actor: caller.participantId },
      );
    });
  }

  /** A child, its first custody entry (`registered`, linked to the parent's entry `prev`) and its event. */
  private async insert(sql: Sql, row: DiamondRow, caller: Caller, prev: string, now: Date): Promise<DiamondV1> {
    return (await insertNewDiamond(this.diamonds, sql, row, caller.participantId, prev, now)).record;
  }

  /** A transaction whose duplicate child participant_id answers like a duplicate registration. */
  private async tx<T>(fn: (sql: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.uow.run(fn);
    } catch (err) {
      if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) {
        throw new ConflictError('diamond is not unique: participant_id is already used by a sibling', 'diamond_not_unique');
      }
      throw err;
    }
  }
}

/** What comes out of a rough diamond cannot weigh more than it (decimal arithmetic). */
function checkWeight(parent: DiamondRow, carats: Decimal, reason: string, what: string): void {
  const parentCarats = parent.rough.carats;
  if (parentCarats === undefined || parentCarats === null) return;
  if (carats.lte(toDecimal(parentCarats))) return;
  throw new ConflictError(`${what} weigh(s) ${carats.toFixed()} ct, more than the ${parentCarats} ct of rough diamond ${parent.diamond_id}`, reason, {
    parent_carats: parentCarats,
    carats: carats.toFixed(),
  });
}
