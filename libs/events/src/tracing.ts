import { Context, context, isSpanContextValid, Link, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * W3C trace context across the outbox and the transports (OpenTelemetry API only: without a registered SDK every
 * call here is a no-op, so a service without tracing pays nothing). The chain is:
 * HTTP request span (instrumentation) -> `traceparent` stored on the outbox row in the request's transaction ->
 * relay's `publish <topic>` span, child of that context, injected into the message headers (Kafka headers, or
 * the in-process bus's) -> consumer's `process <topic>` span, child of the headers' context, around the handler
 * (whose SQL spans nest under it).
 */
const tracer = () => trace.getTracer('@dtp/events');

/**
 * The active context as a `traceparent` header value, or null (no span, or tracing off). Without a valid span in the
 * context there is nothing a propagator writes as `traceparent` (the W3C one writes nothing then), so that case, every
 * request of a service without tracing, is answered without a carrier and the propagator's look-up.
 */
export function activeTraceparent(): string | null {
  const active = context.active();
  const spanContext = trace.getSpanContext(active);
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ?? null;
}

/** The context a `traceparent` (and `tracestate`) names; the root context when there is none. */
export function contextFromHeaders(headers: Record<string, string | undefined> | null | undefined): Context {
  if (!headers?.traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** Headers carrying the context of `span`. */
export function headersFor(span: Span, parent: Context = ROOT_CONTEXT): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return carrier;
}

/** Starts a span under `parent` (not made active). */
export function startSpan(name: string, kind: SpanKind, parent: Context, attributes: Record<string, string | number> = {}, links: Link[] = []): Span {
  return tracer().startSpan(name, { kind, attributes, links }, parent);
}

/** Runs `fn` inside a new active span under `parent`; records an exception and an error status when it throws. */
export async function withSpan<T>(
  name: string,
  kind: SpanKind,
  parent: Context,
  attributes: Record<string, string | number>,
  fn: () => Promise<T>,
  links: Link[] = [],
): Promise<T> {
  const span = startSpan(name, kind, parent, attributes, links);
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

export { SpanKind };
