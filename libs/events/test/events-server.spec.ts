import { Controller, INestApplication, Module } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { KnownEventEnvelope, Topics } from '@dtp/domain';
import {
  connectEvents,
  EventBatchContext,
  EventContext,
  EventItem,
  EventRoute,
  EventTransport,
  EventsServer,
  InProcessTransport,
  ParkEventError,
  SubscribeOptions,
} from '../src';
import { eventsDatabase, logger, newId, onboarded, waitFor } from './helpers';

/**
 * The Nest transport strategy: handlers are discovered from `@EventPattern` on controllers, each becomes a
 * consumer (real PostgreSQL progress, the in-process bus), effects and progress commit together, `afterCommit`
 * hooks run only after a commit, a handler's error keeps its class (ParkEventError parks as `refused`), and
 * instance-scoped routes get a group of their own and start first.
 */
const seen: { route: string; key: string; held: number | null }[] = [];
const afterCommits: string[] = [];

@Controller()
class ServiceScoped {
  @EventPattern(Topics.AUTH_PARTICIPANTS)
  async onParticipant(@Payload() envelope: KnownEventEnvelope, @Ctx() ctx: EventContext): Promise<void> {
    if (envelope.event_type !== 'participant.onboarded') return;
    const { participant_id, name } = envelope.data;
    if (name === 'refuse me') throw new ParkEventError('a rule refuses it');
    await ctx.tx.exec(
      `INSERT INTO participants (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, applied = participants.applied + 1`,
      [participant_id, name],
    );
    ctx.tx.afterCommit(() => afterCommits.push(participant_id));
    if (name === 'fail after write') throw new Error('boom after the write');
    seen.push({ route: 'service', key: ctx.key, held: ctx.heldRevision });
  }
}

@Controller()
class InstanceScoped {
  @EventPattern(Topics.AUTH_PARTICIPANTS, { scope: 'instance', name: 'mirror', order: 0 } satisfies EventRoute)
  onParticipant(@Payload() envelope: KnownEventEnvelope, @Ctx() ctx: EventContext): void {
    seen.push({ route: 'instance', key: envelope.key, held: ctx.heldRevision });
  }
}

describe('EventsServer (a Nest CustomTransportStrategy over the in-process bus, real PostgreSQL)', () => {
  let ds: DataSource;
  let transport: InProcessTransport;
  let app: INestApplication;
  let server: EventsServer;

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('nest_events'));
    transport = new InProcessTransport();
    @Module({ controllers: [ServiceScoped, InstanceScoped] })
    class TestModule {}
    app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false });
    server = new EventsServer({ transport, group: 'svc', dataSource: ds, unitOfWork: new UnitOfWork(ds), logger, registry: new Registry(), instance: 'pod-1' });
    connectEvents(app, server);
    await app.init();
    await app.startAllMicroservices();
  });
  afterAll(async () => {
    await app?.close();
    await transport?.close();
    await ds?.destroy();
  });

  it('discovers the handlers, names their groups and starts the instance-scoped one first', () => {
    const routes = server.routes().map((r) => ({ topic: r.topic, group: r.group }));
    expect(routes).toEqual([
      { topic: Topics.AUTH_PARTICIPANTS, group: 'svc-mirror.pod-1' },
      { topic: Topics.AUTH_PARTICIPANTS, group: 'svc' },
    ]);
    expect(server.starting()).toBeUndefined();
    expect([...server.consumers().keys()]).toEqual(['the auth.participants.v1 consumer (mirror)', 'the auth.participants.v1 consumer']);
  });

  it('applies an event once per route, in the same transaction as its progress, and runs afterCommit after the commit', async () => {
    const id = newId();
    await transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: id, value: onboarded(id, 1, 'first') }]);
    await transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: id, value: onboarded(id, 1, 'first') }]); // duplicate
    await transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: id, value: onboarded(id, 2, 'second') }]);
    // Settled once both routes have committed revision 2 (a handler runs before its transaction commits).
    const progressOf = async () =>
      (await ds.query('SELECT consumer, revision::int AS revision FROM consumer_state WHERE key = $1 ORDER BY consumer', [id])) as {
        consumer: string;
        revision: number;
      }[];
    await waitFor(async () => {
      const p = await progressOf();
      return p.length === 2 && p.every((r) => r.revision === 2);
    }, 'both routes at revision 2');
    await waitFor(() => afterCommits.filter((k) => k === id).length === 2, 'both commits of the service route');
    expect(seen.filter((s) => s.key === id && s.route === 'service').map((s) => s.held)).toEqual([null, 1]);
    expect(seen.filter((s) => s.key === id && s.route === 'instance').map((s) => s.held)).toEqual([null, 1]);
    const [row] = (await ds.query('SELECT name, applied FROM participants WHERE id = $1', [id])) as { name: string; applied: number }[];
    expect(row).toEqual({ name: 'second', applied: 2 });
    expect(afterCommits.filter((k) => k === id)).toHaveLength(2);
    const progress = await progressOf();
    expect(progress).toEqual([
      { consumer: 'svc', revision: 2 },
      { consumer: 'svc-mirror.pod-1', revision: 2 },
    ]);
  });

  it('keeps a handler error as it is: ParkEventError parks as refused, a failure rolls back the write and skips afterCommit', async () => {
    const refused = newId();
    const failing = newId();
    await transport.publish([
      { topic: Topics.AUTH_PARTICIPANTS, key: refused, value: onboarded(refused, 1, 'refuse me') },
      { topic: Topics.AUTH_PARTICIPANTS, key: failing, value: onboarded(failing, 1, 'fail after write') },
    ]);
    const parked = async () =>
      (await ds.query(`SELECT key, reason FROM parked_events WHERE consumer = 'svc' AND key = ANY($1) ORDER BY reason`, [[refused, failing]])) as {
        key: string;
        reason: string;
      }[];
    await waitFor(async () => (await parked()).length === 2, 'both parked');
    expect(await parked()).toEqual([
      { key: refused, reason: 'a rule refuses it' },
      { key: failing, reason: 'handler failed: boom after the write' },
    ]);
    expect(await ds.query('SELECT id FROM participants WHERE id = ANY($1)', [[refused, failing]])).toEqual([]);
    expect(afterCommits).not.toContain(failing);
  });

  it('close stops a start that keeps failing (back-off cut short), and no attempt follows it', async () => {
    let attempts = 0;
    const away: EventTransport = {
      kind: 'kafka',
      publish: async () => undefined,
      check: async () => undefined,
      close: async () => undefined,
      subscribe: async () => {
        attempts += 1;
        throw new Error('broker away');
      },
    };
    @Module({ controllers: [ServiceScoped] })
    class AwayModule {}
    const away$ = await NestFactory.create(AwayModule, new FastifyAdapter(), { logger: false });
    const s = new EventsServer({ transport: away, group: 'svc-away', dataSource: ds, logger });
    connectEvents(away$, s);
    await away$.init();
    const started = away$.startAllMicroservices();
    await waitFor(() => s.starting()?.degraded.includes('last attempt') === true, 'the first attempt failed');
    expect(attempts).toBe(1);
    expect(s.starting()?.degraded).toMatch(/^starting the auth\.participants\.v1 consumer \(last attempt: broker away\)$/);
    await away$.close();
    await started; // the listen callback ran: start-up ended with the server
    const after = attempts;
    await new Promise((r) => setTimeout(r, 1500)); // longer than the first back-off (1 s)
    expect(attempts).toBe(after);
  });

  it("with a transport that can (Kafka), starts a step's service-scoped routes as one consumer (those that ask for their own, or for a fetch wait, alone), retried as one", async () => {
    @Controller()
    class TwoTopics {
      @EventPattern(Topics.GIS_GRADINGS)
      onGrading(): void {}

      @EventPattern(Topics.GIS_ELIGIBILITY)
      onEligibility(): void {}

      @EventPattern(Topics.PLATFORM_CUSTODY, { ownConsumer: true } satisfies EventRoute)
      onCheckpoint(): void {}

      @EventPattern(Topics.PLATFORM_SHARES, { fetchWaitMs: 700 } satisfies EventRoute)
      onShare(): void {}
    }
    const single: string[] = [];
    const together: string[][] = [];
    let failFirst = true;
    const closed: string[] = [];
    const label = (o: SubscribeOptions) => `${o.group}/${o.topic}${o.fetchWaitMs !== undefined ? ` waiting ${o.fetchWaitMs} ms` : ''}`;
    const kafkaLike: EventTransport = {
      kind: 'kafka',
      publish: async () => undefined,
      check: async () => undefined,
      close: async () => undefined,
      subscribe: async (o) => {
        single.push(label(o));
        return { close: async () => void closed.push(o.topic) };
      },
      subscribeAll: async (list) => {
        together.push(list.map(label).sort());
        if (failFirst) {
          failFirst = false;
          throw new Error('broker away');
        }
        return list.map((o) => ({ close: async () => void closed.push(o.topic) }));
      },
    };
    @Module({ controllers: [TwoTopics, InstanceScoped] })
    class SharedModule {}
    const shared$ = await NestFactory.create(SharedModule, new FastifyAdapter(), { logger: false });
    const s = new EventsServer({ transport: kafkaLike, group: 'svc-shared', dataSource: ds, logger, instance: 'pod-9' });
    connectEvents(shared$, s);
    await shared$.init();
    await shared$.startAllMicroservices();
    try {
      // The instance-scoped route (a group of its own), the one asking for its own consumer and the one asking for a
      // longer fetch wait (which it gets) alone; the two other service routes together, again after the failure.
      expect(single.sort()).toEqual(
        [
          `svc-shared-mirror.pod-9/${Topics.AUTH_PARTICIPANTS}`,
          `svc-shared/${Topics.PLATFORM_CUSTODY}`,
          `svc-shared/${Topics.PLATFORM_SHARES} waiting 700 ms`,
        ].sort(),
      );
      const both = [`svc-shared/${Topics.GIS_ELIGIBILITY}`, `svc-shared/${Topics.GIS_GRADINGS}`];
      expect(together).toEqual([both, both]);
      expect([...s.consumers().keys()].sort()).toEqual([
        'the auth.participants.v1 consumer (mirror)',
        `the ${Topics.GIS_ELIGIBILITY} consumer`,
        `the ${Topics.GIS_GRADINGS} consumer`,
        `the ${Topics.PLATFORM_CUSTODY} consumer`,
        `the ${Topics.PLATFORM_SHARES} consumer`,
      ]);
      expect(s.starting()).toBeUndefined();
    } finally {
      await shared$.close();
    }
    expect(closed.sort()).toEqual(
      [Topics.AUTH_PARTICIPANTS, Topics.GIS_ELIGIBILITY, Topics.GIS_GRADINGS, Topics.PLATFORM_CUSTODY, Topics.PLATFORM_SHARES].sort(),
    );
  });

  it('close waits for a consumer whose start was in flight, so nothing it started outlives it', async () => {
    let release: (() => void) | undefined;
    let unsubscribed = false;
    const slow: EventTransport = {
      kind: 'kafka',
      publish: async () => undefined,
      check: async () => undefined,
      close: async () => undefined,
      subscribe: async () => {
        await new Promise<void>((resolve) => (release = resolve)); // the group join takes a while
        return {
          close: async () => {
            await new Promise((r) => setTimeout(r, 500)); // leaving the group takes a while too
            unsubscribed = true;
          },
        };
      },
    };
    @Module({ controllers: [ServiceScoped] })
    class SlowModule {}
    const slow$ = await NestFactory.create(SlowModule, new FastifyAdapter(), { logger: false });
    const s = new EventsServer({ transport: slow, group: 'svc-slow', dataSource: ds, logger });
    connectEvents(slow$, s);
    await slow$.init();
    const started = slow$.startAllMicroservices();
    await waitFor(() => release !== undefined, 'the join under way');
    const closing = s.close(); // what the app's close calls
    release!(); // the join completes while the server closes
    await closing;
    expect(unsubscribed).toBe(true);
    await started;
    await slow$.close();
  });

  it('drops its instance progress at close, and refuses two handlers of one topic in one group', async () => {
    await app.close();
    expect(await ds.query(`SELECT DISTINCT consumer FROM consumer_state ORDER BY consumer`)).toEqual([{ consumer: 'svc' }]);

    @Controller()
    class Twin {
      @EventPattern(Topics.AUTH_PARTICIPANTS)
      on(): void {}
    }
    @Module({ controllers: [ServiceScoped, Twin] })
    class ClashModule {}
    const clash = await NestFactory.create(ClashModule, new FastifyAdapter(), { logger: false });
    try {
      const s = new EventsServer({ transport, group: 'svc2', dataSource: ds, logger });
      expect(() => connectEvents(clash, s)).toThrow('two handlers consume auth.participants.v1 in group svc2');
    } finally {
      await clash.close();
    }
  });
});

/** A `many` route: the handler takes the claimed events of a run at once, tombstones as items without an event. */
const batches: { key: string; event: string | null; held: number | null }[][] = [];

@Controller()
class ManyAtOnce {
  @EventPattern(Topics.AUTH_PARTICIPANTS, { many: true, tombstones: true } satisfies EventRoute)
  async onParticipants(@Payload() items: EventItem[], @Ctx() ctx: EventBatchContext): Promise<void> {
    for (const { event } of items) {
      if (event?.event_type === 'participant.onboarded' && event.data.name === 'refuse me') throw new ParkEventError('a rule refuses it');
    }
    const named = items.filter((i) => i.event?.event_type === 'participant.onboarded');
    await ctx.tx.exec(
      `INSERT INTO participants (id, name) SELECT * FROM unnest($1::uuid[], $2::text[])
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, applied = participants.applied + 1`,
      [named.map((i) => i.key), named.map((i) => (i.event!.data as { name: string }).name)],
    );
    batches.push(items.map((i) => ({ key: i.key, event: i.event?.event_type ?? null, held: i.heldRevision })));
  }
}

describe('EventsServer with a `many` route', () => {
  let ds: DataSource;
  let transport: InProcessTransport;
  let app: INestApplication;

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('nest_many'));
    transport = new InProcessTransport();
    @Module({ controllers: [ManyAtOnce] })
    class ManyModule {}
    app = await NestFactory.create(ManyModule, new FastifyAdapter(), { logger: false });
    connectEvents(app, new EventsServer({ transport, group: 'many', dataSource: ds, unitOfWork: new UnitOfWork(ds), logger }));
    await app.init();
    await app.startAllMicroservices();
  });
  afterAll(async () => {
    await app?.close();
    await transport?.close();
    await ds?.destroy();
  });

  it('gives a run of events to one call, a tombstone as an item without an event, and parks only what the handler refuses', async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const names = async () =>
      Object.fromEntries(
        ((await ds.query('SELECT id, name FROM participants WHERE id = ANY($1)', [[a, b, c]])) as { id: string; name: string }[]).map((r) => [r.id, r.name]),
      );
    await transport.publish([
      { topic: Topics.AUTH_PARTICIPANTS, key: a, value: onboarded(a, 1, 'a1') },
      { topic: Topics.AUTH_PARTICIPANTS, key: b, value: onboarded(b, 1, 'b1') },
      { topic: Topics.AUTH_PARTICIPANTS, key: a, value: onboarded(a, 2, 'a2') },
      { topic: Topics.AUTH_PARTICIPANTS, key: a, value: null },
    ]);
    await waitFor(() => batches.length === 3, 'three calls');
    expect(batches).toEqual([
      [
        { key: a, event: 'participant.onboarded', held: null },
        { key: b, event: 'participant.onboarded', held: null },
      ],
      [{ key: a, event: 'participant.onboarded', held: 1 }],
      [{ key: a, event: null, held: 2 }],
    ]);
    expect(await names()).toEqual({ [a]: 'a2', [b]: 'b1' });

    batches.length = 0;
    await transport.publish([
      { topic: Topics.AUTH_PARTICIPANTS, key: c, value: onboarded(c, 1, 'refuse me') },
      { topic: Topics.AUTH_PARTICIPANTS, key: b, value: onboarded(b, 2, 'b2') },
    ]);
    // The batch fails whole; one item per call then: c is parked as refused, b applied.
    await waitFor(() => batches.length === 1, 'b applied alone');
    expect(batches).toEqual([[{ key: b, event: 'participant.onboarded', held: 1 }]]);
    expect(await names()).toEqual({ [a]: 'a2', [b]: 'b2' });
    await waitFor(async () => ((await ds.query('SELECT 1 FROM parked_events WHERE key = $1', [c])) as unknown[]).length === 1, 'c parked');
    expect(await ds.query('SELECT reason FROM parked_events WHERE key = $1', [c])).toEqual([{ reason: 'a rule refuses it' }]);
  });
});
