import { Injectable } from '@nestjs/common';
import type { Caller } from '@dtp/auth-guard';
import type { DiamondV1 } from '@dtp/domain';
import { UnitOfWork } from '@dtp/database';
import { DiamondChanges } from '../diamonds/diamond-changes';

/** The portal's manual unlock, as an API call: `locked` -> `unlocked`, for good. */
@Injectable()
export class UnlockService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly changes: DiamondChanges,
  ) {}

  /** Holder only. Idempotent: unlocking an unlocked diamond changes nothing (same version, no event). */
  async unlock(caller: Caller, diamondId: string): Promise<DiamondV1> {
    return this.uow.run(async (sql) => {
      const row = await this.changes.loadHeld(sql, diamondId, caller, { action: 'unlock it', lock: true });
      if (row.unlock_status === 'unlocked') return this.changes.record(sql, row);
      return this.changes.commit(sql, row, { unlock_status: 'unlocked' }, { action: 'unlocked', actor: caller.participantId });
    });
  }
}
