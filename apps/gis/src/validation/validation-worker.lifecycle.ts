import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { GIS_CONFIG } from '../common/tokens';
import type { GisConfig } from '../config';
import { ValidationWorker } from './validation.worker';

/** Runs the validation worker for the application's lifetime (unless VALIDATION_WORKER_ENABLED=false). */
@Injectable()
export class ValidationWorkerLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    private readonly worker: ValidationWorker,
    @Inject(GIS_CONFIG) private readonly config: GisConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.validationWorkerEnabled) await this.worker.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker.stop();
  }
}
