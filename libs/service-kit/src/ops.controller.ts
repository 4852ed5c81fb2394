import { Controller, Get, Inject, NotFoundException, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HttpSettings } from './http-settings';
import { ServiceMetrics } from './metrics';
import { Public } from './public.decorator';
import { Readiness } from './readiness';

/** Liveness, readiness and Prometheus metrics; no token needed. */
@ApiExcludeController()
@Public()
@Controller()
export class OpsController {
  constructor(
    @Inject(Readiness) private readonly readiness: Readiness,
    @Inject(ServiceMetrics) private readonly metrics: ServiceMetrics,
    @Inject(HttpSettings) private readonly http: HttpSettings,
  ) {}

  @Get('health/live')
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() reply: FastifyReply) {
    const { ready, status, checks, details } = await this.readiness.evaluate();
    return reply.status(ready ? 200 : 503).send({ status, checks, ...(Object.keys(details).length > 0 ? { details } : {}) });
  }

  @Get('metrics')
  async scrape(@Res() reply: FastifyReply) {
    // With METRICS_PORT set, /metrics lives on that port only: here it is an unknown route like any other.
    if (!this.http.metricsOnMainPort) throw new NotFoundException(`Cannot ${reply.request.method} ${reply.request.url}`);
    const body = await this.metrics.registry.metrics();
    return reply.header('Content-Type', this.metrics.registry.contentType).send(body);
  }
}
