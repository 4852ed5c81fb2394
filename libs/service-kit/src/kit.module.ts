import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { HttpSettings } from './http-settings';
import { ServiceMetrics } from './metrics';
import { OpsController } from './ops.controller';
import { Readiness } from './readiness';

export const LOGGER = Symbol('LOGGER');

/** What every service gets: its logger, metrics registry, readiness checks and the ops endpoints. */
export interface ServiceContext {
  name: string;
  logger: Logger;
  metrics: ServiceMetrics;
  readiness: Readiness;
  /** Trusted proxies, docs on/off, /metrics on the main port or not, draining (http-settings.ts). */
  http: HttpSettings;
}

@Global()
@Module({})
export class KitModule {
  static forRoot(ctx: ServiceContext): DynamicModule {
    return {
      module: KitModule,
      controllers: [OpsController],
      providers: [
        { provide: LOGGER, useValue: ctx.logger },
        { provide: ServiceMetrics, useValue: ctx.metrics },
        { provide: Readiness, useValue: ctx.readiness },
        { provide: HttpSettings, useValue: ctx.http },
      ],
      exports: [LOGGER, ServiceMetrics, Readiness, HttpSettings],
    };
  }
}
