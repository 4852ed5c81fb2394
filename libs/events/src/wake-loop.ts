/**
 * The loop of a background worker that drains a table: a pass whenever something may be due, woken at once by a
 * poke (a NOTIFY, a local commit) and otherwise by a fallback poll; a failing pass (or preparation) is retried with
 * exponential back-off, and the next success resets it. Used by the outbox relay and by GIS's validation worker.
 *
 *   iteration: prepare() (connect, LISTEN again...); if a pass is pending: pass(); then idle until poked or
 *   `pollMs` passes, after which a pass is pending again.
 *   on an error: onError(err, retryInMs), wait retryInMs (a poke cuts it short), double it up to maxBackoffMs.
 *
 * stop() ends the loop after the pass in hand (an idle wait or back-off ends at once) and resolves when it has.
 */
export interface WakeLoopOptions {
  /** One pass: everything due now (it loops itself while there is more). */
  pass: () => Promise<void>;
  /** Before every iteration, whether a pass is pending or not (reconnect what was lost). A throw counts as a failed pass. */
  prepare?: () => Promise<void>;
  /** The fallback poll when no poke comes, in ms (a function: read on every idle wait). */
  pollMs: number | (() => number);
  /** After a failure; `retryInMs` is the back-off about to be waited. */
  onError: (err: unknown, retryInMs: number) => Promise<void> | void;
  /** First back-off (default 100 ms), doubled per failure in a row up to maxBackoffMs (default 10 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export class WakeLoop {
  private active = false;
  private pending = true;
  /** Whatever is waiting in pause() now (the loop's idle wait, a caller's own wait). */
  private readonly waiting = new Set<() => void>();
  private done?: Promise<void>;

  constructor(private readonly opts: WakeLoopOptions) {}

  /** True from start() until stop() is called. */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.pending = true;
    this.done = this.loop();
  }

  /** Asks for a pass as soon as the one in hand (if any) ends; cuts an idle wait, a back-off or a pause() short. */
  poke(): void {
    this.pending = true;
    this.wakeAll();
  }

  /** Ends the loop: an idle wait or back-off at once, a pass in hand when it returns. Resolves once the loop ended. */
  stop(): Promise<void> {
    this.active = false;
    this.wakeAll();
    return this.done ?? Promise.resolve();
  }

  /** Sleeps `ms`, or less when poked or stopped (for the caller's own waits, e.g. for a lock, inside prepare). */
  async pause(ms: number): Promise<void> {
    if (!this.active) return;
    let cut!: () => void;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      cut = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.add(cut);
    });
    this.waiting.delete(cut);
  }

  private wakeAll(): void {
    for (const cut of this.waiting) cut();
  }

  private async loop(): Promise<void> {
    const initial = this.opts.initialBackoffMs ?? 100;
    let backoff = initial;
    while (this.active) {
      try {
        await this.opts.prepare?.();
        if (this.pending) {
          this.pending = false;
          await this.opts.pass();
        }
        backoff = initial;
        if (this.active && !this.pending) {
          await this.pause(typeof this.opts.pollMs === 'function' ? this.opts.pollMs() : this.opts.pollMs);
          this.pending = true;
        }
      } catch (err) {
        if (!this.active) break;
        this.pending = true;
        try {
          await this.opts.onError(err, backoff);
        } catch {
          // onError's own failure (logging, a reconnect check) must not end the loop: the back-off still follows.
        }
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 10_000);
      }
    }
  }
}
