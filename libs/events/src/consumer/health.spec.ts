import type { IncomingMessage } from '../transport';
import { ConsumerHealth, POSITION_FRESH_MS, STUCK_FRESH_MS } from './health';

const msg = (partition: number, offset: number, highWatermark?: number): IncomingMessage => ({
  topic: 't',
  partition,
  offset: String(offset),
  key: 'k',
  value: null,
  ...(highWatermark === undefined ? {} : { highWatermark: String(highWatermark) }),
});

describe('ConsumerHealth', () => {
  let now = 1_000_000;
  const health = (extra: Partial<ConstructorParameters<typeof ConsumerHealth>[0]> = {}) =>
    new ConsumerHealth({ stuckAfterFailures: 3, lagThreshold: 10, now: () => now, ...extra });

  it("counts the lag from the partitions' ends as of their last fetch, and forgets partitions not fetched from for long", () => {
    const h = health();
    h.track(msg(0, 100, 105));
    h.track(msg(1, 7, 8));
    expect(h.snapshot()).toMatchObject({ lag: 6, degraded: false });
    h.settle('applied', msg(0, 100));
    expect(h.snapshot().lag).toBe(5);
    h.track(msg(0, 101, 120));
    expect(h.snapshot()).toMatchObject({ lag: 20, degraded: true });
    now += POSITION_FRESH_MS;
    expect(h.snapshot()).toMatchObject({ lag: 0, degraded: false });
    expect(h.settledOffsets()).toEqual(
      new Map([
        [0, 101],
        [1, 7],
      ]),
    );
  });

  it('counts outcomes and parked messages by reason', () => {
    const h = health();
    h.track(msg(0, 1));
    h.settle('applied', msg(0, 1));
    h.settle('duplicate', msg(0, 2));
    h.settle('parked', msg(0, 3), 'invalid');
    h.settle('parked', msg(0, 4), 'invalid');
    h.settle('parked', msg(0, 5), 'refused');
    expect(h.counts).toEqual({ applied: 1, duplicate: 1, parked: 3, tombstone: 0, tombstone_skipped: 0 });
    expect(h.snapshot().parked).toEqual({ invalid: 2, refused: 1 });
  });

  it('has a partition stuck while one message keeps failing, until it is settled or stops failing', () => {
    const h = health();
    const m = msg(2, 9);
    h.track(m);
    expect(h.failed(m)).toMatchObject({ partition: 2, failures: 1, counted: 0 });
    h.failed(m);
    expect(h.snapshot().stuckPartitions).toBe(0);
    h.failed(m).counted += 1;
    expect(h.snapshot()).toMatchObject({ stuckPartitions: 1, degraded: true });
    expect(h.failed(m)).toMatchObject({ failures: 4, counted: 1 });
    now += STUCK_FRESH_MS;
    expect(h.snapshot().stuckPartitions).toBe(0);
    h.failed(m);
    expect(h.snapshot().stuckPartitions).toBe(1);
    h.settle('parked', m, 'retries_exhausted');
    expect(h.snapshot().stuckPartitions).toBe(0);
    expect(h.failed(m).failures).toBe(1);
  });

  it('reports the assigned partitions when the subscription knows them', () => {
    expect(health().snapshot()).not.toHaveProperty('assignedPartitions');
    expect(health({ assignedPartitions: () => [0, 2] }).snapshot().assignedPartitions).toEqual([0, 2]);
  });
});
