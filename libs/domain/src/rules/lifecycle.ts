import { LifecycleState } from '../enums/diamond-state';

/**
 * Lifecycle moves (the spec does not show them; DESIGN.md's added endpoints imply them):
 * a rough diamond is polished (a polished child is created), split (rough cuts are created) or
 * destroyed. `split`, `polished` and `destroyed` are terminal for the parent's lifecycle_state.
 * A polished child starts in `polished` and a cut in `rough`; those are starting states, not moves.
 */
export const LIFECYCLE_TRANSITIONS: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = Object.freeze({
  rough: ['polished', 'split', 'destroyed'],
  split: [],
  polished: [],
  destroyed: [],
});

export function canTransition(from: LifecycleState | string, to: LifecycleState | string): boolean {
  const next = (LIFECYCLE_TRANSITIONS as Record<string, readonly string[] | undefined>)[from];
  return next !== undefined && next.includes(to);
}

export function isTerminalLifecycleState(state: LifecycleState): boolean {
  return LIFECYCLE_TRANSITIONS[state].length === 0;
}
