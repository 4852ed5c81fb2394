import { ROOT_CONTEXT } from '@opentelemetry/api';
import { contextFromHeaders, SpanKind, startSpan, withSpan } from '../tracing';
import type { IncomingMessage } from '../transport';

/**
 * The consumer's trace spans: each message is handled in a `process <topic>` span continuing the trace its headers
 * carry (in a batch, each handler call in its own message's span, inside the batch's one transaction); without
 * tracing, no-ops.
 */
export class ConsumerSpans {
  constructor(
    private readonly topic: string,
    private readonly group: string,
  ) {}

  private attributes(message: IncomingMessage) {
    return {
      'messaging.destination.name': this.topic,
      'messaging.consumer.group.name': this.group,
      'messaging.operation.type': 'process',
      'messaging.kafka.offset': message.offset,
    };
  }

  /** Runs `fn` in a `process <topic>` span continuing the trace `message` carries. */
  inMessage<T>(message: IncomingMessage, fn: () => Promise<T>): Promise<T> {
    return withSpan(`process ${this.topic}`, SpanKind.CONSUMER, contextFromHeaders(message.headers), this.attributes(message), fn);
  }

  /**
   * Runs `fn`, one handler call on the events of `messages`. One message: in its `process <topic>` span. Several:
   * each message still gets its `process <topic>` span, a child of its headers' context (the writer's trace goes
   * on), and `fn` runs inside one more `process <topic>` span, linked to all of them (OpenTelemetry's convention
   * for batches), under which its SQL spans nest.
   */
  async inBatch(messages: readonly IncomingMessage[], fn: () => Promise<void>): Promise<void> {
    if (messages.length === 1) return this.inMessage(messages[0], fn);
    const spans = messages.map((m) => startSpan(`process ${this.topic}`, SpanKind.CONSUMER, contextFromHeaders(m.headers), this.attributes(m)));
    const links = spans.map((span) => ({ context: span.spanContext() }));
    const attributes = { ...this.attributes(messages[0]), 'messaging.batch.message_count': messages.length };
    try {
      // A failure is the batch span's (recorded by withSpan): the messages are then taken one at a time, each in a
      // span of its own that says how it went.
      await withSpan(`process ${this.topic}`, SpanKind.CONSUMER, ROOT_CONTEXT, attributes, fn, links);
    } finally {
      for (const span of spans) span.end();
    }
  }
}
