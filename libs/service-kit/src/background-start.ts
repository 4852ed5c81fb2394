import 'reflect-metadata'; // first export of the kit's index: metadata before any config class is declared
import type { Logger } from 'pino';
import { Readiness } from './readiness';
import { sleep } from './service';

/** One piece of start-up work that may wait on another system, started once it has succeeded. */
export interface BackgroundStep {
  name: string;
  start: () => Promise<void>;
}

/**
 * Start-up steps run after the HTTP server listens, so that a restarted service answers as soon as its database
 * is reachable even when, say, a Kafka consumer group join waits out a dead member's session (30 s or more).
 * Until every step has started, readiness shows `<component>: degraded: starting <step>` (still ready: the
 * service answers, and what the steps feed is only behind). A failing step is logged and retried with back-off
 * (1 s doubling to 30 s); steps run in order, each once.
 *
 *   const consumers = new BackgroundStart({ component: 'consumers', steps, readiness, logger });
 *   const running = await listenService({ ..., onClose: async () => { await consumers.stop(); ... } });
 *   await settled(consumers.begin(), config.CONSUMER_START_WAIT_MS);
 */
export class BackgroundStart {
  private stopped = false;
  private pending: string | null;
  private lastError: string | null = null;
  private attempt: Promise<void> = Promise.resolve();
  private done?: Promise<void>;

  constructor(private readonly opts: { component: string; steps: BackgroundStep[]; readiness: Readiness; logger: Logger }) {
    this.pending = opts.steps[0]?.name ?? null;
    opts.readiness.addReport(opts.component, async () =>
      this.pending === null ? undefined : { degraded: `starting ${this.pending}${this.lastError ? ` (last attempt: ${this.lastError})` : ''}` },
    );
  }

  /** Starts the steps (once); resolves when every step has started, never rejects (failures are retried). */
  begin(): Promise<void> {
    return (this.done ??= this.run());
  }

  /** Stops retrying and waits for the attempt in flight, so the caller can then stop what did start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.attempt.catch(() => undefined);
  }

  private async run(): Promise<void> {
    for (const step of this.opts.steps) {
      this.pending = step.name;
      for (let wait = 1000; !this.stopped; wait = Math.min(wait * 2, 30_000)) {
        this.attempt = step.start();
        try {
          await this.attempt;
          this.lastError = null;
          this.opts.logger.info({ step: step.name }, 'started');
          break;
        } catch (err) {
          this.lastError = err instanceof Error ? err.message : String(err);
          this.opts.logger.error({ step: step.name, err: this.lastError, retryInMs: wait }, 'could not start; retrying');
          await sleep(wait);
        }
      }
      if (this.stopped) return;
    }
    this.pending = null;
  }
}

/** Waits for `work` at most `ms` (never rejects): lets a caller give quick work the chance to finish first. */
export async function settled(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
