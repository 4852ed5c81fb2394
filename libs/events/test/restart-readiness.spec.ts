import { randomUUID } from 'node:crypto';
import { Controller, INestApplication, Module } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { KnownEventEnvelope, Topics } from '@dtp/domain';
import { KafkaProxy, kafkaTestBrokers } from '@dtp/testing';
import {
  BrokerMonitor,
  connectEvents,
  EventContext,
  EventRoute,
  EventsServer,
  InProcessTransport,
  KafkaTransport,
  SubscribeOptions,
  Subscription,
} from '../src';
import { eventsDatabase, logger, newId, onboarded, waitFor } from './helpers';

/**
 * What a restarted service says while it comes back (DESIGN.md "Health and readiness"): its consumers start
 * together (one group join, not one per consumer), readiness reads `catching up (lag N)` until each is at the head
 * its topic had when it started, and a broker that stops answering is `degraded`, reported at once from the last
 * background check, never a readiness that waits on the broker.
 */

describe('a consumer that starts behind its topic: readiness says catching up until it is at the head (Kafka peer)', () => {
  const prefix = `catchup-${randomUUID().slice(0, 8)}.`;
  let ds: DataSource;
  let transport: KafkaTransport;
  let app: INestApplication | undefined;
  let gate: () => void = () => undefined;
  let gateOpen: Promise<void>;
  const applied = new Set<string>();

  @Controller()
  class Slow {
    @EventPattern(Topics.AUTH_PARTICIPANTS)
    async onParticipant(@Payload() envelope: KnownEventEnvelope, @Ctx() _ctx: EventContext): Promise<void> {
      await gateOpen;
      applied.add(envelope.key);
    }
  }

  beforeAll(async () => {
    ({ ds } = await eventsDatabase('catch_up'));
    transport = new KafkaTransport({
      clientId: 'catch-up-test',
      brokers: kafkaTestBrokers(),
      logger,
      maxWaitTimeInMs: 50,
      sessionTimeoutMs: 6000,
      topicPrefix: prefix,
      groupPrefix: prefix,
    });
    await transport.connect();
    gateOpen = new Promise<void>((resolve) => (gate = resolve));
  });
  afterAll(async () => {
    gate();
    await app?.close();
    await transport?.close();
    await ds?.destroy();
  });

  it('reads catching up (lag N) while behind, then nothing once the committed positions reach the head', async () => {
    const ids = Array.from({ length: 60 }, () => newId());
    await transport.publish(ids.map((id) => ({ topic: Topics.AUTH_PARTICIPANTS, key: id, value: onboarded(id, 1) })));
    @Module({ controllers: [Slow] })
    class TestModule {}
    app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false });
    const server = new EventsServer({ transport, group: 'svc', dataSource: ds, unitOfWork: new UnitOfWork(ds), logger, registry: new Registry() });
    connectEvents(app, server);
    await app.init();
    await app.startAllMicroservices();

    // Running, held at its first message: behind by (almost) the whole topic.
    await waitFor(
      () => server.starting()?.degraded.startsWith('catching up (lag ') === true && !server.starting()!.degraded.includes('unknown'),
      'catching up with a known lag',
      30_000,
    );
    const behind = server.starting()!;
    const lag = Number(/lag (\d+)/.exec(behind.degraded)![1]);
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThanOrEqual(ids.length);
    expect(behind.detail).toEqual({ catching_up: [{ consumer: 'the auth.participants.v1 consumer', lag }] });
    expect(applied.size).toBe(0);

    gate();
    await waitFor(() => server.starting() === undefined, 'at the head', 30_000);
    expect(ids.every((id) => applied.has(id))).toBe(true);
    // Later messages are ordinary lag (the consumer_lag gauges), not a restart's catching up.
    const later = newId();
    await transport.publish([{ topic: Topics.AUTH_PARTICIPANTS, key: later, value: onboarded(later, 1) }]);
    await waitFor(() => applied.has(later), 'a later message applied', 30_000);
    expect(server.starting()).toBeUndefined();
  });
});

describe('consumers of one start order join their groups together', () => {
  /** The in-process bus, except that a subscription waits until the other topic's subscription has begun. */
  class RendezvousTransport extends InProcessTransport {
    readonly begun = new Set<string>();
    private release = new Map<string, () => void>();

    override async subscribe(opts: SubscribeOptions): Promise<Subscription> {
      const pair: string[] = [Topics.AUTH_PARTICIPANTS, Topics.GIS_GRADINGS];
      if (pair.includes(opts.topic)) {
        this.begun.add(opts.topic);
        const other = pair.find((t) => t !== opts.topic)!;
        if (!this.begun.has(other)) await new Promise<void>((resolve) => this.release.set(opts.topic, resolve));
        else this.release.get(other)?.();
      }
      return super.subscribe(opts);
    }
  }

  @Controller()
  class Two {
    @EventPattern(Topics.AUTH_PARTICIPANTS)
    onParticipant(): void {}

    @EventPattern(Topics.GIS_GRADINGS)
    onGrading(): void {}

    @EventPattern(Topics.PLATFORM_DIAMONDS, { scope: 'instance', name: 'first', order: 0 } satisfies EventRoute)
    first(): void {}
  }

  it('starts both (a start one consumer at a time would wait forever on the first), after the lower order', async () => {
    const { ds } = await eventsDatabase('rendezvous');
    const transport = new RendezvousTransport();
    const subscribed: string[] = [];
    const base = transport.subscribe.bind(transport);
    transport.subscribe = async (opts) => {
      subscribed.push(opts.topic);
      return base(opts);
    };
    @Module({ controllers: [Two] })
    class TestModule {}
    const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false });
    try {
      const server = new EventsServer({
        transport,
        group: 'svc',
        dataSource: ds,
        unitOfWork: new UnitOfWork(ds),
        logger,
        registry: new Registry(),
        instance: 'pod-1',
      });
      connectEvents(app, server);
      await app.init();
      await app.startAllMicroservices();
      await waitFor(() => server.starting() === undefined, 'every consumer running', 10_000);
      expect(subscribed[0]).toBe(Topics.PLATFORM_DIAMONDS);
      expect(new Set(subscribed.slice(1))).toEqual(new Set([Topics.AUTH_PARTICIPANTS, Topics.GIS_GRADINGS]));
      expect(server.consumers().size).toBe(3);
    } finally {
      await app.close();
      await transport.close();
      await ds.destroy();
    }
  });
});

describe('BrokerMonitor: the broker checked in the background, readiness answered from the last result', () => {
  let proxy: KafkaProxy;
  let transport: KafkaTransport;
  let monitor: BrokerMonitor;
  const registry = new Registry();

  beforeAll(async () => {
    const [host, port] = kafkaTestBrokers()[0].split(':');
    proxy = new KafkaProxy({ host, port: Number(port) });
    const via = await proxy.start();
    transport = new KafkaTransport({
      clientId: 'monitor-test',
      brokers: kafkaTestBrokers(),
      logger,
      connectVia: { [kafkaTestBrokers()[0]]: via },
      connectionTimeoutMs: 1000,
    });
    monitor = new BrokerMonitor({ transport, logger, registry, intervalMs: 200, timeoutMs: 500 });
  });
  afterAll(async () => {
    await monitor?.stop();
    proxy?.thaw();
    await transport?.close();
    await proxy?.stop();
  });

  const gauge = async () => (await registry.getSingleMetric('events_broker_up')!.get()).values[0]?.value;

  it('up, then unreachable while the broker is frozen (within the check timeout), then up again after a thaw', async () => {
    expect(monitor.current()).toBeUndefined();
    monitor.start();
    await waitFor(() => monitor.current()?.broker === 'up', 'first check up', 20_000);
    expect(await gauge()).toBe(1);

    proxy.freeze();
    const frozenAt = Date.now();
    await waitFor(() => monitor.current()?.broker === 'unreachable', 'unreachable while frozen', 20_000);
    const down = monitor.current()!;
    expect(Date.parse(down.since)).toBeGreaterThanOrEqual(frozenAt - 1000);
    expect(down.error).toBeTruthy();
    expect(await gauge()).toBe(0);
    // Reading the state never waits on the broker.
    const t0 = Date.now();
    for (let i = 0; i < 100; i += 1) monitor.current();
    expect(Date.now() - t0).toBeLessThan(100);

    proxy.thaw();
    await waitFor(() => monitor.current()?.broker === 'up', 'up after the thaw', 30_000);
    expect(await gauge()).toBe(1);
  });
});
