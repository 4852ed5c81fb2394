import type { Logger } from 'pino';
import { Readiness } from './readiness';
import { sleep } from './service';

/** One piece of start-up work that may wait on another system, started once it has succeeded. */
export interface BackgroundStep {
  name: string;
  start: () => Promise<void>;
}

export interface BackgroundStart {
  /** Resolves when every step has started (never rejects: failures are retried until `stop`). */
  readonly done: Promise<void>;
  /** Stops retrying and waits for the attempt in flight, so the caller can then stop what did start. */
  stop(): Promise<void>;
}

/**
 * Runs start-up steps after the HTTP server listens, so that a restarted service answers as soon as its database
 * is reachable even when, say, a Kafka consumer group join waits out a dead member's session (30 s or more).
 * Until every step has started, readiness shows `<component>: degraded: starting <step>` (still ready: the
 * service answers, and what the steps feed is only behind). A failing step is logged and retried with back-off
 * (1 s doubling to 30 s); steps run in order, each once.
 */
export function startInBackground(opts: { component: string; steps: BackgroundStep[]; readiness: Readiness; logger: Logger }): BackgroundStart {
  let stopped = false;
  let pending: string | null = opts.steps[0]?.name ?? null;
  let lastError: string | null = null;
  opts.readiness.addReport(opts.component, async () =>
    pending === null ? undefined : { degraded: `starting ${pending}${lastError ? ` (last attempt: ${lastError})` : ''}` },
  );
  let attempt: Promise<void> = Promise.resolve();
  const done = (async () => {
    for (const step of opts.steps) {
      pending = step.name;
      for (let wait = 1000; !stopped; wait = Math.min(wait * 2, 30_000)) {
        attempt = step.start();
        try {
          await attempt;
          lastError = null;
          opts.logger.info({ step: step.name }, 'started');
          break;
        } catch (err) {
          lastError = err instanceof Error ? err.message : String(err);
          opts.logger.error({ step: step.name, err: lastError, retryInMs: wait }, 'could not start; retrying');
          await sleep(wait);
        }
      }
      if (stopped) return;
    }
    pending = null;
  })();
  return {
    done,
    stop: async () => {
      stopped = true;
      await attempt.catch(() => undefined);
    },
  };
}

/** Waits for `work` at most `ms` (never rejects): lets a caller give quick work the chance to finish first. */
export async function settled(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
