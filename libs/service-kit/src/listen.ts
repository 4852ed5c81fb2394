import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { eventsReporter } from './consumer-health';
import { ServiceContext } from './kit.module';
import { ServiceMetrics } from './metrics';
import { Readiness } from './readiness';
import { BaseServiceConfig, RunningService, sleep } from './service';
import type { Logger } from 'pino';

/**
 * A service's logger, metrics and readiness. Readiness reports the `events` component from the consumer gauges
 * on the metrics registry (consumer-health.ts): degraded while a consumer is stuck or lagging.
 */
export function newServiceContext(name: string, logger: Logger): ServiceContext {
  const metrics = new ServiceMetrics(name);
  const readiness = new Readiness();
  readiness.addReport('events', eventsReporter(metrics.registry));
  return { name, logger, metrics, readiness };
}

/**
 * Starts listening and returns the handle whose close() drains: readiness turns 503, waits
 * SHUTDOWN_DRAIN_MS, stops accepting and finishes in-flight requests, then runs `onClose` (workers, pools).
 */
export async function listenService(opts: {
  name: string;
  app: NestFastifyApplication;
  config: BaseServiceConfig;
  ctx: ServiceContext;
  onClose?: () => Promise<void>;
}): Promise<RunningService> {
  const { app, config, ctx } = opts;
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  let closing: Promise<void> | undefined;
  return {
    name: opts.name,
    url: `http://localhost:${port}`,
    app,
    close: () =>
      (closing ??= (async () => {
        ctx.readiness.startDraining();
        if (config.SHUTDOWN_DRAIN_MS > 0) await sleep(config.SHUTDOWN_DRAIN_MS);
        await app.close();
        await opts.onClose?.();
      })()),
  };
}
