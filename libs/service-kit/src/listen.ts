import { createServer, Server } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { settled } from './settled';
import { eventsReporter } from './consumer-health';
import { HttpSettings } from './http-settings';
import { ServiceContext } from './kit.module';
import { ServiceMetrics } from './metrics';
import { Readiness } from './readiness';
import { BaseServiceConfig, RunningService, sleep } from './service';
import type { Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { closeTlsListener, startTlsListener } from './tls-listener';

/**
 * A service's logger, metrics and readiness. Readiness reports the `events` component from the consumer gauges
 * on the metrics registry (consumer-health.ts): degraded while a consumer is stuck or lagging.
 */
export function newServiceContext(name: string, logger: Logger): ServiceContext {
  const metrics = new ServiceMetrics(name);
  const readiness = new Readiness();
  readiness.addReport('events', eventsReporter(metrics.registry));
  return { name, logger, metrics, readiness, http: new HttpSettings() };
}

/**
 * The listener of METRICS_PORT: `GET /metrics` (Prometheus text) and nothing else, so that the main port, the
 * one an Ingress routes to, need not serve it.
 */
export async function startMetricsListener(ctx: ServiceContext, port: number, host: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res
        .writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ message: `Cannot ${req.method} ${path}`, error: 'Not Found' }));
      return;
    }
    ctx.metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': ctx.metrics.registry.contentType }).end(req.method === 'HEAD' ? undefined : body),
      (err: unknown) => {
        ctx.logger.error({ err }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ message: 'metrics collection failed' }));
      },
    );
  });
  return { server, url: `${await listenOn(server, port, host)}/metrics` };
}

/**
 * Starts `server` on `port` and `host` (port 0: any free one) and resolves with its address as
 * `http://localhost:<port>`; rejects when it cannot listen (the port taken, say). For a service's side listeners.
 */
export async function listenOn(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return `http://localhost:${typeof address === 'object' && address ? address.port : port}`;
}

/**
 * Starts listening and returns the handle whose close() drains: readiness turns 503, waits
 * SHUTDOWN_DRAIN_MS, stops accepting and finishes in-flight requests, then runs `onClose` (workers, pools).
 * The config's HTTP settings (TRUSTED_PROXIES, DOCS_ENABLED, METRICS_PORT) apply from the first request; with
 * METRICS_PORT, `/metrics` gets a listener of its own (`metricsUrl`), closed last.
 */
export async function listenService(opts: {
  name: string;
  app: NestFastifyApplication;
  config: BaseServiceConfig;
  ctx: ServiceContext;
  onClose?: () => Promise<void>;
}): Promise<RunningService> {
  const { app, config, ctx } = opts;
  ctx.http.apply(config);
  const metrics =
    config.METRICS_PORT === undefined || config.METRICS_PORT === null ? undefined : await startMetricsListener(ctx, config.METRICS_PORT, config.HOST);
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    metrics?.server.close();
    throw err;
  }
  // HTTPS beside the plain port (mutual TLS): the same Fastify routing, on a TLS server asking for client certificates.
  let tls: Awaited<ReturnType<typeof startTlsListener>> | undefined;
  if (config.tlsPort !== undefined && config.TLS_CERT_FILE && config.TLS_KEY_FILE) {
    const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
    try {
      tls = await startTlsListener(
        { TLS_CERT_FILE: config.TLS_CERT_FILE, TLS_KEY_FILE: config.TLS_KEY_FILE, TLS_CLIENT_CA_FILE: config.TLS_CLIENT_CA_FILE },
        config.tlsPort,
        config.HOST,
        (req, res) => fastify.routing(req, res),
      );
    } catch (err) {
      await app.close();
      metrics?.server.close();
      throw err;
    }
  }
  // Event consumers (the app's microservices, e.g. @dtp/events' EventsServer) start after the server listens, so
  // a restarted service answers at once while its Kafka groups join; readiness shows `consumers` until then.
  const microservices = app.startAllMicroservices().catch((err: unknown) => {
    ctx.logger.fatal({ err }, 'event consumers could not be started');
    throw err;
  });
  await settled(microservices, config.CONSUMER_START_WAIT_MS);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  let closing: Promise<void> | undefined;
  return {
    name: opts.name,
    url: `http://localhost:${port}`,
    ...(metrics ? { metricsUrl: metrics.url } : {}),
    ...(tls ? { tlsUrl: tls.url } : {}),
    app,
    close: () =>
      (closing ??= (async () => {
        ctx.readiness.startDraining();
        ctx.http.draining = true;
        if (config.SHUTDOWN_DRAIN_MS > 0) await sleep(config.SHUTDOWN_DRAIN_MS);
        if (tls) await closeTlsListener(tls.server);
        await app.close();
        await opts.onClose?.();
        if (metrics) await new Promise<void>((resolve) => metrics.server.close(() => resolve()));
      })()),
  };
}
