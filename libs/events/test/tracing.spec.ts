import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { DataSource } from 'typeorm';
import { Topics } from '@dtp/domain';
import { activeTraceparent, headersFor, InProcessTransport, outboxInsert, OutboxRelay, runConsumer, RunningConsumer, writeOutbox } from '../src';
import { eventsDatabase, logger, newId, onboarded, waitFor } from './helpers';

/**
 * The trace context's path through the events: a request's span -> the outbox row -> the relay's publish span
 * -> the message headers -> the consumer's process span, around the handler. A real OpenTelemetry SDK with an
 * in-memory exporter (the services install theirs from the environment, libs/service-kit/src/telemetry.ts).
 */
describe('trace context through outbox, relay and consumer', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  let ds: DataSource;
  let url: string;

  beforeAll(async () => {
    contextManager.enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    ({ ds, url } = await eventsDatabase('tracing'));
  });

  afterAll(async () => {
    await ds.destroy();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it("stores an event's own traceparent when it carries one, and the active context's otherwise", () => {
    const request = provider.getTracer('test').startSpan('POST /diamonds/rough/create', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    const earlier = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const event = { topic: Topics.PLATFORM_DIAMONDS, key: 'k', eventType: 'diamond.upserted', revision: 1, payload: {} };
    const { values } = context.with(trace.setSpan(ROOT_CONTEXT, request), () =>
      outboxInsert([{ ...event, traceparent: earlier }, event, { ...event, traceparent: null }]),
    );
    request.end();
    const { traceId, spanId } = request.spanContext();
    // Six values a row; the traceparent is the sixth.
    expect([values[5], values[11], values[17]]).toEqual([earlier, `00-${traceId}-${spanId}-01`, null]);
    // No span, or one whose context is not valid: nothing to carry.
    expect(outboxInsert([event]).values[5]).toBeNull();
    expect(activeTraceparent()).toBeNull();
    expect(context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(INVALID_SPAN_CONTEXT)), () => activeTraceparent())).toBeNull();
    expect(context.with(trace.setSpan(ROOT_CONTEXT, request), () => activeTraceparent())).toBe(`00-${traceId}-${spanId}-01`);
  });

  it.each([
    ['one message at a time', false],
    ['in batches', true],
  ] as const)("continues the writer's trace in the consumer (%s)", async (_name, batch) => {
    exporter.reset();
    const topic = Topics.AUTH_PARTICIPANTS;
    const transport = new InProcessTransport();
    const seen = new Map<string, string | undefined>();
    const consumer: RunningConsumer = await runConsumer({
      transport,
      topic,
      group: 'g',
      dataSource: ds,
      logger,
      batch,
      handle: async (event) => void seen.set(event.key, trace.getActiveSpan()?.spanContext().traceId),
    });
    const relay = new OutboxRelay({ service: `tracing-${batch}`, databaseUrl: url, transport, logger, pollIntervalMs: 50 });

    const traced = newId();
    const untraced = newId();
    const request = provider.getTracer('test').startSpan('POST /diamonds', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    await context.with(trace.setSpan(ROOT_CONTEXT, request), () =>
      ds.transaction((m) => writeOutbox(m, [{ topic, key: traced, eventType: 'participant.onboarded', revision: 1, payload: onboarded(traced, 1) }])),
    );
    request.end();
    await ds.transaction((m) => writeOutbox(m, [{ topic, key: untraced, eventType: 'participant.onboarded', revision: 1, payload: onboarded(untraced, 1) }]));
    await relay.start();
    try {
      await waitFor(() => seen.has(traced) && seen.has(untraced), 'both events handled');
    } finally {
      await relay.stop();
      await consumer.close();
      await transport.close();
    }

    const traceId = request.spanContext().traceId;
    expect(seen.get(traced)).toBe(traceId);
    // The untraced row starts no trace of the request's (its own process span is a fresh root).
    expect(seen.get(untraced)).not.toBe(traceId);

    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    const publish = spans.find((s) => s.name === `publish ${topic}`);
    const processSpan = spans.find((s) => s.name === `process ${topic}`);
    expect(publish?.kind).toBe(SpanKind.PRODUCER);
    expect(publish?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(processSpan?.kind).toBe(SpanKind.CONSUMER);
    expect(processSpan?.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
    expect(processSpan?.attributes['messaging.destination.name']).toBe(topic);
  });

  it('handleMany: each message keeps its process span in its own trace, the call runs in a batch span linked to them', async () => {
    exporter.reset();
    const topic = Topics.AUTH_PARTICIPANTS;
    const transport = new InProcessTransport();
    const calls: number[] = [];
    const consumer = await runConsumer({
      transport,
      topic,
      group: 'g-many',
      dataSource: ds,
      logger,
      handleMany: async (events) => void calls.push(events.length),
    });
    const writers = [0, 1].map((i) => provider.getTracer('test').startSpan(`writer ${i}`, { kind: SpanKind.PRODUCER }, ROOT_CONTEXT));
    const ids = [newId(), newId()];
    try {
      await transport.publish(ids.map((id, i) => ({ topic, key: id, value: onboarded(id, 1), headers: headersFor(writers[i]) })));
      await waitFor(() => calls.length === 1, 'one call');
    } finally {
      await consumer.close();
      await transport.close();
    }
    expect(calls).toEqual([2]);
    const processSpans = exporter.getFinishedSpans().filter((s) => s.name === `process ${topic}`);
    const batch = processSpans.find((s) => s.attributes['messaging.batch.message_count'] === 2);
    const perMessage = processSpans.filter((s) => s !== batch);
    expect(perMessage.map((s) => s.parentSpanContext?.spanId).sort()).toEqual(writers.map((w) => w.spanContext().spanId).sort());
    expect(perMessage.map((s) => s.spanContext().traceId).sort()).toEqual(writers.map((w) => w.spanContext().traceId).sort());
    expect(batch?.links.map((l) => l.context.spanId).sort()).toEqual(perMessage.map((s) => s.spanContext().spanId).sort());
  });
});
