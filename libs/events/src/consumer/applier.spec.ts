import { runLength } from './applier';
import type { Inspection } from './inspect';

const event = (key: string): Inspection => ({ kind: 'event', envelope: { key } as never });

describe('runLength (the runs a batch claims in one statement)', () => {
  it('takes consecutive events with distinct keys', () => {
    const checks = [event('a'), event('b'), event('c')];
    expect(runLength(checks, 0)).toBe(3);
    expect(runLength(checks, 1)).toBe(2);
  });

  it('ends a run at a repeated key, a tombstone or a message to park', () => {
    expect(runLength([event('a'), event('b'), event('a')], 0)).toBe(2);
    expect(runLength([event('a'), { kind: 'tombstone' }, event('b')], 0)).toBe(1);
    expect(runLength([event('a'), { kind: 'park', park: { reason: 'invalid', text: 'x' } }], 0)).toBe(1);
  });

  it('is 0 where no event starts one', () => {
    expect(runLength([{ kind: 'tombstone' }, event('a')], 0)).toBe(0);
    expect(runLength([event('a')], 1)).toBe(0);
  });
});
