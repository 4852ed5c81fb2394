import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { UnitOfWork } from '@dtp/database';
import { LOGGER } from '@dtp/service-kit';
import type { PlatformConfig } from '../config';
import { PLATFORM_CONFIG } from '../tokens';
import { WebhooksRepository } from './webhooks.repository';

const BATCH = 5000;

/** Deletes events (and their deliveries) older than EVENT_RETENTION_DAYS: one minute after start, then hourly. */
@Injectable()
export class EventRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly repo: WebhooksRepository,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const run = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.purge()
          .catch((err) => this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'webhooks: event purge failed'))
          .finally(() => run(3600_000));
      }, delay);
      this.timer.unref();
    };
    run(60_000);
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
  }

  /** Deletes what is past the retention, in short statements; how many events went. */
  async purge(): Promise<number> {
    const before = new Date(Date.now() - this.config.EVENT_RETENTION_DAYS * 86400_000);
    let total = 0;
    for (;;) {
      const n = await this.repo.purge(this.uow.sql, before, BATCH);
      total += n;
      if (n < BATCH) return total;
    }
  }
}
