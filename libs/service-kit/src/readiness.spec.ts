import { Readiness } from './readiness';

/**
 * `/health/ready`'s verdict: 503 only when a check is down or the instance drains; a degraded component (a broker
 * away, a consumer catching up) stays ready and says why, from every reporter of the component.
 */
describe('Readiness', () => {
  it('is ready and ok with every check up and no reporter degraded', async () => {
    const r = new Readiness();
    r.add('database', async () => undefined);
    r.addReport('events', async () => ({ detail: { broker: 'up' } }));
    expect(await r.evaluate()).toEqual({ ready: true, status: 'ok', checks: { database: 'up', events: 'up' }, details: { events: { broker: 'up' } } });
  });

  it("stays ready while degraded, joining the reasons of a component's reporters in the order they were added and merging their details", async () => {
    const r = new Readiness();
    r.add('database', async () => undefined);
    r.addReport('events', async () => ({
      degraded: 'broker unreachable since 2026-11-26T21:00:00.000Z (Connection timeout)',
      detail: { broker: 'unreachable' },
    }));
    r.addReport('events', async () => ({ detail: { lag: 0, parked: 0 } }));
    r.addReport('events', async () => ({ degraded: 'outbox behind (12 unpublished, oldest 75 s)', detail: { outbox: { leader: true, backlog: 12 } } }));
    r.addReport('consumers', async () => ({ degraded: 'catching up (lag 40)' }));
    const result = await r.evaluate();
    expect(result.ready).toBe(true);
    expect(result.status).toBe('degraded');
    expect(result.checks).toEqual({
      database: 'up',
      events: 'degraded: broker unreachable since 2026-11-26T21:00:00.000Z (Connection timeout); outbox behind (12 unpublished, oldest 75 s)',
      consumers: 'degraded: catching up (lag 40)',
    });
    expect(result.details).toEqual({ events: { broker: 'unreachable', lag: 0, parked: 0, outbox: { leader: true, backlog: 12 } } });
  });

  it('is unavailable when a check is down (a degraded report does not hide it), and while draining', async () => {
    const r = new Readiness();
    r.add('database', async () => {
      throw new Error('connection refused');
    });
    r.addReport('database', async () => ({ degraded: 'slow' }));
    const down = await r.evaluate();
    expect(down).toMatchObject({ ready: false, status: 'unavailable', checks: { database: 'down: connection refused' } });

    const ok = new Readiness();
    ok.add('database', async () => undefined);
    ok.startDraining();
    expect(await ok.evaluate()).toMatchObject({ ready: false, status: 'unavailable', checks: { database: 'up', shutdown: 'draining' } });
  });

  it('counts a reporter that throws or hangs past the timeout as degraded, not down', async () => {
    const r = new Readiness();
    r.addReport('events', () => new Promise(() => undefined));
    r.addReport('consumers', async () => {
      throw new Error('gauges unreadable');
    });
    const result = await r.evaluate(50);
    expect(result.ready).toBe(true);
    expect(result.checks).toEqual({ events: 'degraded: report failed: timed out after 50 ms', consumers: 'degraded: report failed: gauges unreadable' });
  });
});
