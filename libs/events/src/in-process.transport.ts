import { EventTransport, IncomingMessage, OutgoingMessage, SubscribeOptions, Subscription } from './transport';

const noop = (): void => undefined;

interface Group {
  topic: string;
  group: string;
  position: number;
  handlers: SubscribeOptions[];
  running: boolean;
  wake?: () => void;
  closed: boolean;
  /** The message being handled now, and by which subscriber: closing waits for it. */
  inFlight?: { sub: SubscribeOptions; done: Promise<void> };
}

/**
 * The in-process bus of `npm start`: a topic is an append-only array (one partition, so order is total),
 * each consumer group has a position and one delivery loop; a failing handler is retried with backoff, like a
 * Kafka consumer that does not commit. Holds the log in memory only: the outbox tables are the durable record.
 */
export class InProcessTransport implements EventTransport {
  readonly kind = 'in-process' as const;
  private readonly logs = new Map<string, IncomingMessage[]>();
  private readonly groups = new Map<string, Group>();
  private closed = false;

  constructor(private readonly onHandlerError: (err: unknown, message: IncomingMessage) => void = () => {}) {}

  async publish(messages: OutgoingMessage[]): Promise<void> {
    if (this.closed) throw new Error('transport closed');
    for (const m of messages) {
      const log = this.log(m.topic);
      const stored: IncomingMessage = {
        topic: m.topic,
        partition: 0,
        offset: String(log.length),
        key: m.key,
        value: null,
        ...(m.headers ? { headers: m.headers } : {}),
      };
      // A message given as JSON text (jsonMessage) keeps it undecoded until a consumer takes it.
      if (m.json !== undefined) Object.defineProperty(stored, 'value', { enumerable: true, get: () => m.value });
      else stored.value = m.value;
      log.push(stored);
    }
    for (const g of this.groups.values()) g.wake?.();
  }

  async subscribe(opts: SubscribeOptions): Promise<Subscription> {
    const id = `${opts.topic}\u0000${opts.group}`;
    let group = this.groups.get(id);
    if (!group) {
      const start = opts.fromBeginning === false ? this.log(opts.topic).length : 0;
      group = { topic: opts.topic, group: opts.group, position: start, handlers: [], running: false, closed: false };
      this.groups.set(id, group);
    }
    group.handlers.push(opts);
    if (!group.running) void this.loop(group);
    const g = group;
    return {
      // Like a Kafka consumer's disconnect, it returns once the message this subscriber has in hand is handled, so a
      // service that closes its database next never pulls it from under a running handler.
      close: async () => {
        g.handlers = g.handlers.filter((h) => h !== opts);
        if (g.handlers.length === 0) {
          g.closed = true;
          g.wake?.();
          this.groups.delete(id);
        }
        if (g.inFlight?.sub === opts) await g.inFlight.done;
      },
    };
  }

  async check(): Promise<void> {
    if (this.closed) throw new Error('transport closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    const inFlight: Promise<void>[] = [];
    for (const g of this.groups.values()) {
      g.closed = true;
      g.wake?.();
      if (g.inFlight) inFlight.push(g.inFlight.done);
    }
    await Promise.all(inFlight);
  }

  private log(topic: string): IncomingMessage[] {
    let log = this.logs.get(topic);
    if (!log) {
      log = [];
      this.logs.set(topic, log);
    }
    return log;
  }

  private async loop(g: Group): Promise<void> {
    g.running = true;
    let delay = 50;
    while (!g.closed) {
      const log = this.log(g.topic);
      if (g.position >= log.length) {
        await new Promise<void>((resolve) => (g.wake = resolve));
        g.wake = undefined;
        continue;
      }
      // Delivered as copies that carry the log's end at delivery time (the consumer's lag).
      const highWatermark = String(log.length);
      const message = { ...log[g.position], highWatermark };
      // Groups share the partition: one subscriber of the group takes it (one consumer per partition).
      const sub = g.handlers[0];
      const attempt = (async () => {
        if (sub.batchHandler) {
          const batch = log.slice(g.position, g.position + (sub.maxBatch ?? 100)).map((m) => ({ ...m, highWatermark }));
          await sub.batchHandler(batch);
          g.position += batch.length;
        } else {
          await sub.handler(message);
          g.position += 1;
        }
      })();
      g.inFlight = { sub, done: attempt.then(noop, noop) };
      let failure: { err: unknown } | undefined;
      try {
        await attempt;
      } catch (err) {
        failure = { err };
      }
      g.inFlight = undefined; // handled (or failed): a close need not wait for the back-off below
      if (!failure) {
        delay = 50;
      } else {
        this.onHandlerError(failure.err, message);
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    g.running = false;
  }
}
