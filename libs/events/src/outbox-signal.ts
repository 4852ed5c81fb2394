import { OUTBOX_CHANNEL } from './outbox';

const NOTIFY_EVERY_MS = 25;

/**
 * Wakes the outbox relay after a service's writes commit, instead of the outbox table's per-statement
 * NOTIFY trigger (dropped by a migration where the service uses this: platform). A NOTIFY inside a transaction takes a
 * database-wide lock from its commit until the end of the commit, so with the trigger every registration
 * committed one at a time (about 8x fewer transactions per second with durable commits, measured). Here:
 * - the relay of this process is poked at once (no database round trip);
 * - at most one NOTIFY per NOTIFY_EVERY_MS, in its own tiny transaction, wakes a relay in another replica
 *   (only one replica's relay publishes; it may not be ours);
 * - the relay's fallback poll covers anything else (e.g. a consumer's write poked before its commit).
 */
export class OutboxSignal {
  private relayPoke?: () => void;
  private timer?: NodeJS.Timeout;
  private closed = false;

  /** `notify` sends one NOTIFY on the outbox channel (OUTBOX_CHANNEL) outside any transaction. */
  constructor(private readonly notify: (channel: string) => Promise<unknown>) {}

  /** The relay of this process (set once it exists). */
  attachRelay(poke: () => void): void {
    this.relayPoke = poke;
  }

  /** Call after a transaction that may have written outbox rows committed (calling it more often is harmless). */
  committed(): void {
    this.relayPoke?.();
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.relayPoke?.();
      this.notify(OUTBOX_CHANNEL).catch(() => undefined);
    }, NOTIFY_EVERY_MS);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
