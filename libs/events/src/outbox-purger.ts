import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';
import type { Sql } from '@dtp/database';
import { metric } from './metrics';

/** Default retention of published outbox rows: 7 days, Kafka's default topic retention. */
export const DEFAULT_OUTBOX_RETENTION_HOURS = 168;
/** How often the purge runs (and once, OUTBOX_PURGE_FIRST_DELAY_MS after start-up, so frequent restarts still purge). */
export const OUTBOX_PURGE_INTERVAL_MS = 60 * 60 * 1000;
export const OUTBOX_PURGE_FIRST_DELAY_MS = 60 * 1000;

export interface OutboxPurgerOptions {
  sql: Pick<Sql, 'rows'>;
  /** Published rows older than this many hours are deleted; 0 keeps every row for ever (no purge). */
  retentionHours: number;
  logger: Logger;
  registry?: Registry;
  /** Rows per DELETE statement (default 5,000): each is a short transaction of its own. */
  batchSize?: number;
}

/**
 * Deletes outbox rows once they have been published for longer than the retention. The outbox is the durable
 * record of events until they are published (docs/events.md); after that Kafka holds them, and a read model is
 * rebuilt from the topic, never from the outbox. Without this the table grows for ever, with every event's payload.
 *
 * Never deletes an unpublished row, nor one published after the cutoff. Rows are taken in id order from the
 * start of the table up to the first row that must stay (unpublished, or published after the cutoff), in batches
 * of `batchSize`, each batch its own statement, so the relay and the writers are never held up for long. Every
 * replica may run it; two at once delete each row once.
 */
export class OutboxPurger {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private readonly purged?: Counter;

  constructor(private readonly opts: OutboxPurgerOptions) {
    this.purged = metric(
      opts.registry,
      'outbox_purged_total',
      (registers) =>
        new Counter({ name: 'outbox_purged_total', help: 'Published outbox rows deleted after the retention (OUTBOX_RETENTION_HOURS)', registers }),
    );
  }

  get enabled(): boolean {
    return this.opts.retentionHours > 0;
  }

  /** Purges once shortly after start-up, then every OUTBOX_PURGE_INTERVAL_MS (timers unref'd) until stop(). */
  start(): void {
    if (!this.enabled) return;
    const after = (delay: number) => {
      this.timer = setTimeout(() => void this.purge().finally(() => this.timer && after(OUTBOX_PURGE_INTERVAL_MS)), delay);
      this.timer.unref();
    };
    after(OUTBOX_PURGE_FIRST_DELAY_MS);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /**
   * Deletes the rows published before `now` minus the retention; returns how many. A failure is logged and
   * counts 0: the next round tries again. A call while a purge runs joins it.
   */
  purge(now: Date = new Date()): Promise<number> {
    if (!this.enabled) return Promise.resolve(0);
    this.running ??= this.purgeBefore(new Date(now.getTime() - this.opts.retentionHours * 3_600_000))
      .then((total) => {
        if (total > 0) this.opts.logger.info({ deleted: total, retentionHours: this.opts.retentionHours }, 'outbox: published rows purged');
        return total;
      })
      .catch((err: unknown) => {
        this.opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'outbox: purge failed');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async purgeBefore(cutoff: Date): Promise<number> {
    const { sql } = this.opts;
    const limit = this.opts.batchSize ?? 5000;
    // The first row that stays: nothing at or past it is deleted in this round. An index scan in id order that
    // stops at it, having walked only rows this round deletes.
    const [stop] = await sql.rows<{ id: string }>('SELECT id::text AS id FROM outbox WHERE published_at IS NULL OR published_at >= $1 ORDER BY id LIMIT 1', [
      cutoff,
    ]);
    let after = '0';
    let total = 0;
    for (;;) {
      // Checked again row by row: a row that was still uncommitted when `stop` was found may be below it now.
      const [batch] = await sql.rows<{ n: number; last: string | null }>(
        `WITH gone AS (
           DELETE FROM outbox WHERE id IN (
             SELECT id FROM outbox
              WHERE id > $1::bigint AND ($2::bigint IS NULL OR id < $2::bigint) AND published_at < $3
              ORDER BY id LIMIT $4)
           RETURNING id)
         SELECT count(*)::int AS n, max(id)::text AS last FROM gone`,
        [after, stop?.id ?? null, cutoff, limit],
      );
      total += batch.n;
      this.purged?.inc(batch.n);
      if (batch.n < limit || batch.last === null) return total;
      after = batch.last;
    }
  }
}
