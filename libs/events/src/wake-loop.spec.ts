import { WakeLoop, WakeLoopOptions } from './wake-loop';

/** Resolves when `cond` holds, checking after every macrotask (no wall-clock bound of its own: jest's timeout is). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

/** A loop whose pass and preparation are recorded; `fail` makes the next passes throw. */
function harness(over: Partial<WakeLoopOptions> = {}) {
  const log: string[] = [];
  const state = { passes: 0, failures: 0, fail: 0, prepares: 0, retries: [] as number[] };
  const loop = new WakeLoop({
    prepare: async () => {
      state.prepares += 1;
    },
    pass: async () => {
      state.passes += 1;
      log.push('pass');
      if (state.fail > 0) {
        state.fail -= 1;
        throw new Error('broker away');
      }
    },
    pollMs: 3_600_000, // never within a test: passes come from start() and pokes only
    onError: (_err, retryInMs) => {
      state.failures += 1;
      state.retries.push(retryInMs);
    },
    ...over,
  });
  return { loop, log, state };
}

describe('WakeLoop', () => {
  it('makes one pass at start, then one per poke, and none without one', async () => {
    const { loop, state } = harness();
    loop.start();
    await until(() => state.passes === 1);
    // Idle: the preparation ran once, no second pass however long we wait for other work to settle.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(state.passes).toBe(1);
    loop.poke();
    await until(() => state.passes === 2);
    loop.poke();
    await until(() => state.passes === 3);
    expect(state.prepares).toBeGreaterThanOrEqual(3);
    await loop.stop();
    expect(loop.running).toBe(false);
  });

  it('polls when no poke comes', async () => {
    const { loop, state } = harness({ pollMs: () => 1 });
    loop.start();
    await until(() => state.passes >= 3);
    await loop.stop();
  });

  it('retries a failing pass with a back-off that doubles up to the cap, and resets it after a success', async () => {
    const { loop, state } = harness({ initialBackoffMs: 1, maxBackoffMs: 4 });
    state.fail = 4;
    loop.start();
    await until(() => state.passes === 5); // four failures, then a success
    expect(state.retries).toEqual([1, 2, 4, 4]);
    state.fail = 1;
    loop.poke();
    await until(() => state.failures === 5);
    expect(state.retries[4]).toBe(1);
    await until(() => state.passes === 7); // the retry after it
    await loop.stop();
  });

  it('treats a failing preparation like a failed pass, and a failing onError does not end the loop', async () => {
    let prepareFails = 2;
    const errors: string[] = [];
    const { loop, state } = harness({
      initialBackoffMs: 1,
      prepare: async () => {
        if (prepareFails-- > 0) throw new Error('no connection');
      },
      onError: (err) => {
        errors.push((err as Error).message);
        throw new Error('logging failed');
      },
    });
    loop.start();
    await until(() => state.passes === 1);
    expect(errors).toEqual(['no connection', 'no connection']);
    await loop.stop();
  });

  it('stop() ends an idle wait at once and waits for a pass in hand to return', async () => {
    let release!: () => void;
    const { loop, log } = harness({
      pass: async () => {
        log.push('pass starts');
        await new Promise<void>((r) => (release = r));
        log.push('pass ends');
      },
    });
    loop.start();
    await until(() => log.length === 1);
    const stopped = loop.stop().then(() => log.push('stopped'));
    loop.poke(); // after stop: no further pass
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['pass starts']);
    release();
    await stopped;
    expect(log).toEqual(['pass starts', 'pass ends', 'stopped']);

    const idle = harness();
    idle.loop.start();
    await until(() => idle.state.passes === 1);
    await idle.loop.stop(); // with an hour-long poll pending: resolves only because the wait was cut
    expect(idle.state.passes).toBe(1);
  });

  it('pause() is cut short by a poke', async () => {
    const { loop, state } = harness();
    loop.start();
    await until(() => state.passes === 1);
    await loop.stop();
    // A stopped loop does not pause at all; a running one wakes on poke.
    await loop.pause(3_600_000);
    const other = harness({ pass: async () => undefined });
    other.loop.start();
    const paused = other.loop.pause(3_600_000);
    await new Promise((r) => setImmediate(r));
    other.loop.poke();
    await paused;
    await other.loop.stop();
  });
});
