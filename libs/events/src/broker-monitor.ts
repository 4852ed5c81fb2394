import { Gauge, Registry } from 'prom-client';
import type { Logger } from 'pino';
import { metric } from './metrics';
import { EventTransport } from './transport';

export interface BrokerMonitorOptions {
  transport: EventTransport;
  logger: Logger;
  /** Gauge `events_broker_up` (1 reachable, 0 not) on this registry. */
  registry?: Registry;
  /** How often the broker is checked (default 5 s). */
  intervalMs?: number;
  /** How long one check may take before it counts as unreachable (default 3 s: a frozen broker answers nothing). */
  timeoutMs?: number;
}

/** What readiness shows of the broker: nothing until the first check, then its state and since when. */
export interface BrokerState {
  broker: 'up' | 'unreachable';
  since: string;
  error?: string;
}

/**
 * Whether the service can reach its event broker, checked in the background (every `intervalMs`) so that
 * `/health/ready` answers at once from the last result, however long a frozen broker keeps a check waiting.
 *
 * A broker outage is not unreadiness (DESIGN.md "Health and readiness"): the outbox writers keep committing and
 * their relays catch up; search keeps serving what it has. So the readiness `events` component only reads
 * `degraded: broker unreachable ...` and the instance stays in its Service; the gauge `events_broker_up` and the
 * alerts built on it (k8s/base/monitoring) are where an outage pages someone.
 */
export class BrokerMonitor {
  private state?: BrokerState;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly up?: Gauge;

  constructor(private readonly opts: BrokerMonitorOptions) {
    this.up = metric(
      opts.registry,
      'events_broker_up',
      (registers) =>
        new Gauge({
          name: 'events_broker_up',
          help: '1 while the event broker answered the last check, 0 while it did not (checked every few seconds)',
          registers,
        }),
    );
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** The last result (undefined before the first check has finished). */
  current(): BrokerState | undefined {
    return this.state;
  }

  /** One check now (also what the timer runs); resolves when its result is recorded. */
  async checkNow(): Promise<BrokerState> {
    const timeoutMs = this.opts.timeoutMs ?? 3000;
    let timer: NodeJS.Timeout | undefined;
    let error: string | undefined;
    try {
      await Promise.race([
        this.opts.transport.check(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    } finally {
      clearTimeout(timer);
    }
    const broker = error === undefined ? 'up' : 'unreachable';
    const previous = this.state;
    if (previous?.broker !== broker) {
      if (broker === 'unreachable') this.opts.logger.warn({ err: error }, 'events: the broker is unreachable; writes go on through the outbox');
      else if (previous) this.opts.logger.info({ downSince: previous.since }, 'events: the broker is reachable again');
    }
    this.state = { broker, since: previous?.broker === broker ? previous.since : new Date().toISOString(), ...(error ? { error } : {}) };
    this.up?.set(broker === 'up' ? 1 : 0);
    return this.state;
  }

  private tick(): void {
    if (this.stopped) return;
    this.running = this.checkNow().then(
      () => undefined,
      () => undefined,
    );
    void this.running.then(() => {
      if (this.stopped) return;
      this.timer = setTimeout(() => this.tick(), this.opts.intervalMs ?? 5000);
      this.timer.unref();
    });
  }
}
