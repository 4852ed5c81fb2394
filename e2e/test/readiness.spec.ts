import type { DiamondV1 } from '@dtp/domain';
import { onboard, tokenFor } from '@dtp/testing';
import { caller, Caller, converged, eventually, query, registerRough } from './support/clients';
import { AppName, ProcessStack, startProcessStack } from './support/services';

/**
 * What the probes see as deployed (DESIGN.md "Health and readiness"), with the four services as separate processes
 * over the Kafka peer:
 * - a frozen broker (every connection open, nothing flowing, as under SIGSTOP) keeps all four ready (200) with
 *   `events: degraded`, while registrations, tokens and reads go on; after the thaw the outbox drains;
 * - search SIGKILLed while registrations continue is back at the head soon after its restart: its consumers rejoin
 *   together, and a registration made after the kill is visible within a bound generous enough for a loaded CI
 *   machine (the design's target, 10 s, is what `npm run bench -- restart` measures).
 */
const APPS: AppName[] = ['auth', 'platform', 'search', 'gis'];

interface ReadyBody {
  status: string;
  checks: Record<string, string>;
  details?: Record<string, Record<string, unknown>>;
}

describe('readiness through a broker outage and a crash (separate processes, Kafka peer)', () => {
  let stack: ProcessStack;
  let producer: Caller;
  let reader: Caller;

  const ready = async (app: AppName): Promise<{ status: number; body: ReadyBody }> => {
    const res = await fetch(`${stack.urls[app]}/health/ready`);
    return { status: res.status, body: (await res.json()) as ReadyBody };
  };
  const searchStatus = async (id: string) => (await fetch(`${stack.urls.search}/v1/diamonds/${id}`, { headers: { authorization: reader.token } })).status;

  beforeAll(async () => {
    stack = await startProcessStack();
    producer = await caller(stack.urls.auth, 'producer', 'platform');
    reader = await caller(stack.urls.auth, 'non_participant', 'search');
  }, 180_000);

  afterAll(async () => {
    stack?.proxy.thaw();
    await stack?.close();
  });

  it('a frozen broker: all four stay ready (200, events degraded), writes and reads go on, then the backlog drains', async () => {
    await converged(stack.databases.platform, stack.databases.search);
    for (const app of APPS) expect((await ready(app)).body.checks.events).toBe('up');

    stack.proxy.freeze();
    try {
      // Each service notices within its background check (every 5 s, 3 s patience), and stays in its Service.
      const degraded = await eventually(
        async () => {
          const answers = await Promise.all(APPS.map(ready));
          return answers.every((a) => a.body.checks.events?.startsWith('degraded: broker unreachable')) ? answers : undefined;
        },
        'every service degraded',
        60_000,
        250,
      );
      for (const a of degraded) {
        expect(a.status).toBe(200);
        expect(a.body.status).toBe('degraded');
        expect(a.body.details?.events?.broker).toBe('unreachable');
      }
      // The outbox writers show their relay's part.
      expect((await ready('platform')).body.details?.events?.outbox).toMatchObject({ leader: true });

      // Writes commit through the outbox, tokens are issued, search serves what it has; readiness never fails.
      const during: DiamondV1[] = [];
      for (let i = 0; i < 20; i += 1) {
        during.push(await registerRough(stack.urls.platform, producer));
        if (i % 5 === 0) for (const app of APPS) expect((await ready(app)).status).toBe(200);
      }
      const newcomer = await onboard({ urls: { auth: stack.urls.auth } }, 'producer');
      expect(await tokenFor({ urls: { auth: stack.urls.auth } }, newcomer, 'platform')).toMatch(/^ey/);
      expect(await searchStatus(during[0].diamond_id)).toBe(404); // not there yet: nothing flows
      const [{ backlog }] = await query<{ backlog: number }>(
        stack.databases.platform,
        'SELECT count(*)::int AS backlog FROM outbox WHERE published_at IS NULL',
      );
      expect(backlog).toBeGreaterThanOrEqual(during.length);
    } finally {
      stack.proxy.thaw();
    }

    await converged(stack.databases.platform, stack.databases.search, 120_000);
    await eventually(
      async () => {
        const [{ n }] = await query<{ n: number }>(stack.databases.platform, 'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
        return n === 0 ? true : undefined;
      },
      'outbox drained',
      60_000,
    );
    await eventually(
      async () => ((await Promise.all(APPS.map(ready))).every((a) => a.status === 200 && a.body.checks.events === 'up') ? true : undefined),
      'events up everywhere',
      60_000,
      250,
    );
  });

  it('search SIGKILLed under writes: back at the head soon after the restart, a registration made after the kill visible', async () => {
    await converged(stack.databases.platform, stack.databases.search, 60_000);
    let writing = true;
    const written: string[] = [];
    const writer = (async () => {
      while (writing) {
        written.push((await registerRough(stack.urls.platform, producer)).diamond_id);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await eventually(async () => (written.length >= 20 ? true : undefined), 'writes flowing', 30_000);
      await stack.services.search.kill();
      const afterKill = await registerRough(stack.urls.platform, producer);
      const restartedAt = Date.now();
      // How long this machine, now, takes to bring a search process to HTTP (node, TypeScript, migrations): the
      // yardstick of the bound below, so that it stretches with the load of the machine it runs on.
      const live = eventually(
        async () => {
          try {
            return (await fetch(`${stack.urls.search}/health/live`)).status === 200 ? Date.now() - restartedAt : undefined;
          } catch {
            return undefined;
          }
        },
        'search live again',
        120_000,
        50,
      );
      await stack.services.search.start({}, undefined, 120_000);
      const httpAfterMs = await live;
      await eventually(
        async () => ((await searchStatus(afterKill.diamond_id)) === 200 ? true : undefined),
        'the registration made after the kill in search',
        240_000,
        100,
      );
      const visibleAfterMs = Date.now() - restartedAt;
      process.stdout.write(
        `[readiness.spec] search SIGKILLed and restarted: HTTP after ${httpAfterMs} ms, a registration made after the kill visible after ${visibleAfterMs} ms\n`,
      );
      // DESIGN.md's target is 10 s on a quiet machine (npm run bench -- restart measures it). The bound: 40 s, or
      // six times this run's own start-up to HTTP on a loaded machine (4 s quiet, 15 s at a load average of 12).
      // The one-consumer-at-a-time start with 30 s sessions it replaced took about 60 s on a quiet machine.
      expect(visibleAfterMs).toBeLessThan(Math.max(40_000, 6 * httpAfterMs));
      // And it says it is at the head: no consumers component any more.
      await eventually(async () => ((await ready('search')).body.checks.consumers === undefined ? true : undefined), 'search at the head', 60_000, 250);
    } finally {
      writing = false;
      await writer;
    }
    await converged(stack.databases.platform, stack.databases.search, 120_000);
  });
});
