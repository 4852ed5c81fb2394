import pino from 'pino';
import { BackgroundStart, settled } from './background-start';
import { Readiness } from './readiness';

const logger = pino({ level: 'silent' });

describe('BackgroundStart', () => {
  it('runs the steps in order, each once, retrying a failing one; readiness is degraded (still ready) until all started', async () => {
    const readiness = new Readiness();
    const calls: string[] = [];
    let failures = 1;
    const bg = new BackgroundStart({
      component: 'consumers',
      readiness,
      logger,
      steps: [
        { name: 'first', start: async () => void calls.push('first') },
        {
          name: 'second',
          start: async () => {
            calls.push('second');
            if (failures-- > 0) throw new Error('broker away');
          },
        },
      ],
    });
    expect((await readiness.evaluate()).checks.consumers).toBe('degraded: starting first');
    const done = bg.begin();
    expect(bg.begin()).toBe(done);
    await done;
    expect(calls).toEqual(['first', 'second', 'second']);
    const after = await readiness.evaluate();
    expect(after.ready).toBe(true);
    expect(after.checks.consumers).toBeUndefined();
  });

  it('stop() ends the retries and waits for the attempt in flight', async () => {
    const readiness = new Readiness();
    let attempts = 0;
    const bg = new BackgroundStart({
      component: 'consumers',
      readiness,
      logger,
      steps: [
        {
          name: 'never',
          start: async () => {
            attempts++;
            throw new Error('no broker');
          },
        },
      ],
    });
    const done = bg.begin();
    await settled(done, 50);
    expect((await readiness.evaluate()).checks.consumers).toBe('degraded: starting never (last attempt: no broker)');
    await bg.stop();
    await done; // resolves once stopped, after the current back-off
    const seen = attempts;
    await settled(new Promise(() => undefined), 20);
    expect(attempts).toBe(seen);
  });

  it('settled waits at most the given time and never rejects', async () => {
    await expect(settled(Promise.reject(new Error('x')), 1000)).resolves.toBeUndefined();
    let late = false;
    await settled(new Promise<void>((r) => setTimeout(() => { late = true; r(); }, 5000)), 10);
    expect(late).toBe(false);
  });
});
