import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { FastifyInstance, LogController } from 'fastify';
import { JsonExceptionFilter } from './errors';
import { registerBodyDepthLimit } from './input-bounds';
import { KitModule, ServiceContext } from './kit.module';
import { PinoNestLogger } from './logger';
import { ApiValidationPipe } from './validation.pipe';

export interface HttpAppOptions {
  ctx: ServiceContext;
  module: Type<unknown> | DynamicModule;
  docs: { title: string; description: string; version: string; bearer?: boolean };
  bodyLimit?: number;
  /** Register Fastify plugins (multipart, form bodies) before routes are mapped. */
  configure?: (fastify: FastifyInstance) => Promise<void>;
}

/**
 * Builds one service's Nest application on Fastify with everything the kit promises: JSON logs with a request
 * id (taken from `X-Request-Id` or generated, and echoed back), the input bounds (JSON depth 32, no NUL or lone
 * surrogates: input-bounds.ts), the 422 validation pipe, JSON errors, the HTTP latency histogram, `/health/*`,
 * `/metrics` and OpenAPI at `/docs` (JSON at `/docs/json`).
 */
export async function createHttpApp(opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const { ctx } = opts;
  const adapter = new FastifyAdapter({
    loggerInstance: ctx.logger,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    logController: new LogController({ requestIdLogLabel: 'reqId', disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    trustProxy: true,
  });

  @Module({ imports: [KitModule.forRoot(ctx), opts.module] })
  class RootModule {}

  const app = await NestFactory.create<NestFastifyApplication>(RootModule, adapter, {
    logger: new PinoNestLogger(ctx.logger),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;

  fastify.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    ctx.metrics.httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, seconds);
    if (!route.startsWith('/health') && route !== '/metrics') {
      const level = reply.statusCode >= 500 ? 'error' : 'info';
      request.log[level](
        { method: request.method, url: request.url, route, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request completed',
      );
    }
  });
  registerBodyDepthLimit(fastify);
  if (opts.configure) await opts.configure(fastify);

  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(new JsonExceptionFilter());

  const builder = new DocumentBuilder()
    .setTitle(opts.docs.title)
    .setDescription(opts.docs.description)
    .setVersion(opts.docs.version);
  if (opts.docs.bearer !== false) {
    builder.addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization', description: 'An access token from {auth_url}/oauth/token, with or without the "Bearer " prefix' }, 'token');
    builder.addSecurityRequirements('token');
  }
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json', yamlDocumentUrl: 'docs/yaml' });

  await app.init();
  return app;
}
