import { Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { Logger } from 'pino';
import { LOGGER } from '@dtp/service-kit';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

/** How often expired answers are deleted (they are ignored from the moment they are 24 hours old). */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Deletes expired answers every IDEMPOTENCY_PURGE_INTERVAL_MS, batch by batch; every replica may, harmlessly. */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), IDEMPOTENCY_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Deletes every expired answer; returns how many. A failure is logged, and the next round tries again. */
  async purge(): Promise<number> {
    if (this.running) return this.running;
    this.running = (async () => {
      let total = 0;
      for (;;) {
        const deleted = await this.store.purgeExpired();
        total += deleted;
        if (deleted === 0) break;
      }
      if (total > 0) this.logger.info({ deleted: total }, 'idempotency: expired answers purged');
      return total;
    })()
      .catch((err: unknown) => {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'idempotency: purge failed');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}

/**
 * Idempotency-Key on every POST and PATCH of the service that imports it (IdempotencyInterceptor as
 * APP_INTERCEPTOR), its answers in the service's own `idempotency_keys` table (migration steps:
 * createIdempotencyTable / dropIdempotencyTable) and the hourly purge. Needs DatabaseModule (UnitOfWork) and the
 * kit's module (LOGGER). Document it with `documentIdempotencyKey`.
 */
@Module({
  providers: [IdempotencyStore, IdempotencyPurger, { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
  exports: [IdempotencyStore, IdempotencyPurger],
})
export class IdempotencyModule {}
