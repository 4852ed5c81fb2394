import type { IncomingMessage } from '../transport';
import type { ConsumeOutcome, ConsumerHealthSnapshot, ParkReason } from './types';

/** Per partition: the offset of the next message to settle and the end of the partition at the last fetch. */
interface PartitionPosition {
  next: number;
  highWatermark?: number;
  seenAt: number;
}

/** Per message that failed with temporary errors: all failures, and those counted (the database answered). */
export interface Failures {
  partition: number;
  failures: number;
  counted: number;
  lastAt: number;
}

/**
 * A partition not delivered from for this long no longer counts towards the lag (it was revoked in a rebalance,
 * or it is idle and caught up); a stuck or busy partition is delivered from at least every few seconds.
 */
export const POSITION_FRESH_MS = 120_000;

/** A failing message counts as stuck only while it keeps failing (the transports retry at least every 5 s). */
export const STUCK_FRESH_MS = 60_000;

export interface ConsumerHealthOptions {
  /** Consecutive failures of one message after which its partition counts as stuck. */
  stuckAfterFailures: number;
  /** Messages behind the end of the partitions past which the consumer counts as lagging. */
  lagThreshold: number;
  /** The partitions the subscription holds now (Kafka), once there is one. */
  assignedPartitions?: () => readonly number[] | undefined;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * What a consumer knows about how it is doing, from the messages it is given and settles: outcome counts, parked
 * messages by reason, per partition how far it has settled and where the partition ended at the last fetch (the
 * lag), and the messages failing with temporary errors (stuck partitions). Nothing here touches the database.
 */
export class ConsumerHealth {
  readonly counts: Record<ConsumeOutcome, number> = { applied: 0, duplicate: 0, parked: 0, tombstone: 0, tombstone_skipped: 0 };
  private readonly parkedBy: Partial<Record<ParkReason, number>> = {};
  private readonly positions = new Map<number, PartitionPosition>();
  private readonly failing = new Map<string, Failures>();
  private readonly now: () => number;

  constructor(private readonly opts: ConsumerHealthOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** A message was delivered: its partition's end as of that fetch (the lag). */
  track(message: IncomingMessage): void {
    const p = this.positions.get(message.partition);
    const hw = message.highWatermark === undefined ? undefined : Number(message.highWatermark);
    if (!p) this.positions.set(message.partition, { next: Number(message.offset), highWatermark: hw, seenAt: this.now() });
    else {
      p.seenAt = this.now();
      if (hw !== undefined) p.highWatermark = Math.max(p.highWatermark ?? 0, hw);
    }
  }

  /** A message is done with (`reason`: why it was parked): counted, its partition moves past it, its failures forgotten. */
  settle(outcome: ConsumeOutcome, message: IncomingMessage, reason?: ParkReason): void {
    this.counts[outcome] += 1;
    const p = this.positions.get(message.partition);
    if (p) p.next = Math.max(p.next, Number(message.offset) + 1);
    this.failing.delete(failureId(message));
    if (outcome === 'parked' && reason) this.parkedBy[reason] = (this.parkedBy[reason] ?? 0) + 1;
  }

  /**
   * A message failed with a temporary error: one more failure (its partition may now count as stuck). The caller
   * adds to `counted` the failures that count towards parking it (those while the database answered).
   */
  failed(message: IncomingMessage): Failures {
    const id = failureId(message);
    const state = this.failing.get(id) ?? { partition: message.partition, failures: 0, counted: 0, lastAt: 0 };
    this.failing.set(id, state);
    state.failures += 1;
    state.lastAt = this.now();
    return state;
  }

  snapshot(): ConsumerHealthSnapshot {
    const now = this.now();
    let lag = 0;
    for (const p of this.positions.values()) {
      if (p.highWatermark !== undefined && now - p.seenAt < POSITION_FRESH_MS) lag += Math.max(0, p.highWatermark - p.next);
    }
    const stuck = new Set<number>();
    for (const f of this.failing.values()) if (f.failures >= this.opts.stuckAfterFailures && now - f.lastAt < STUCK_FRESH_MS) stuck.add(f.partition);
    const assignedPartitions = this.opts.assignedPartitions?.();
    return {
      lag,
      stuckPartitions: stuck.size,
      degraded: stuck.size > 0 || lag > this.opts.lagThreshold,
      parked: { ...this.parkedBy },
      ...(assignedPartitions ? { assignedPartitions } : {}),
    };
  }

  /** Per partition: the offset after the last message settled. */
  settledOffsets(): ReadonlyMap<number, number> {
    return new Map([...this.positions].map(([partition, p]) => [partition, p.next]));
  }
}

const failureId = (m: IncomingMessage) => `${m.partition}:${m.offset}`;
