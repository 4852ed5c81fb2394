import { canTransition, ConflictError, LifecycleState } from '@dtp/domain';
import type { DiamondRow } from '../diamonds/diamond.entity';

/** 409 `{message, reason: "illegal_transition", from, to}` unless LIFECYCLE_TRANSITIONS allows the move. */
export function assertTransition(row: DiamondRow, to: LifecycleState): void {
  if (canTransition(row.lifecycle_state, to)) return;
  throw new ConflictError(
    `diamond ${row.diamond_id} cannot move from lifecycle_state ${row.lifecycle_state} to ${to}` +
      (row.lifecycle_state === 'rough' ? '' : ` (${row.lifecycle_state} is final)`),
    'illegal_transition',
    { from: row.lifecycle_state, to },
  );
}
