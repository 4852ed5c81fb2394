import { DynamicModule, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { FastifyInstance, LogController } from 'fastify';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonExceptionFilter } from './errors';
import { HttpConfig } from './http-settings';
import { registerBodyDepthLimit, registerFormBodyParser, registerJsonBodyParser } from './input-bounds';
import { KitModule, ServiceContext } from './kit.module';
import { fixNestInterceptorContext } from './nest-interceptor-context';
import { responseContractCheck } from './contract-hook';
import { buildOpenApiDocument, DocsOptions } from './openapi';
import { PinoNestLogger } from './logger';
import { ApiValidationPipe } from './validation.pipe';
import { registerBodyDrain } from './body-drain';
import { registerPrewrittenJson } from './prewritten-json';
import { ClientCertificate, clientCertificateOf, UnreadableClientCertificate } from './client-certificate';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The client certificate the request was made with (mutual TLS on the service's HTTPS listener, or forwarded by
     * a TRUSTED_PROXIES ingress), an unreadable forwarded one, or undefined: client-certificate.ts.
     */
    clientCertificate?: ClientCertificate | UnreadableClientCertificate;
  }
}

export interface HttpAppOptions {
  ctx: ServiceContext;
  module: Type<unknown> | DynamicModule;
  docs: DocsOptions;
  bodyLimit?: number;
  /** Register Fastify plugins (multipart, form bodies) before routes are mapped. */
  configure?: (fastify: FastifyInstance) => Promise<void>;
  /**
   * The service's config (TRUSTED_PROXIES, DOCS_ENABLED, METRICS_PORT), applied at once. Optional: listenService
   * applies it before listening, which is all a running service needs; tests that only inject pass it here.
   */
  config?: HttpConfig;
}

/**
 * Content-Security-Policy of every answer: a JSON API loads nothing and may be framed by no one. A route that
 * serves HTML sets its own `Content-Security-Policy` header, which replaces this one.
 */
export const API_CSP_DIRECTIVES: Record<string, string[]> = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};
/**
 * Content-Security-Policy under /docs: Swagger UI loads its scripts and styles from /docs, has an inline <style>,
 * data: images, and calls the API of its own origin ("Try it out"). Still never framed.
 */
export const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
  "img-src 'self' data:; object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'";
/** HSTS, sent only on answers to requests that came over TLS (directly, or per a TRUSTED_PROXIES hop's X-Forwarded-Proto). */
export const HSTS = 'max-age=31536000; includeSubDomains';

const isDocsPath = (path: string) => path === '/docs' || path.startsWith('/docs/');

/**
 * The security headers of every answer, computed once with helmet (nosniff, CSP with frame-ancestors 'none',
 * X-Frame-Options DENY, Referrer-Policy no-referrer, ...; HSTS is added per request, over TLS only). helmet's
 * middleware is run once against a recording response instead of per request: its Fastify plugin rebuilt the
 * whole configuration (CSP parsing included) on every request, measurable in the registration benchmark.
 */
const SECURITY_HEADERS: Record<string, string> = (() => {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
    getHeader: (name: string) => headers[name.toLowerCase()],
  };
  helmet({
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Sent per request, only over TLS.
    strictTransportSecurity: false,
    // Files and records stay embeddable by other origins (no-cors), as before; CORS-mode reads are not affected anyway.
    crossOriginResourcePolicy: false,
  })({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return headers;
})();

/**
 * Builds one service's Nest application on Fastify with everything the kit promises: JSON logs with a request
 * id (taken from `X-Request-Id` or generated, and echoed back), the input bounds (JSON depth 32, no NUL or lone
 * surrogates: input-bounds.ts), the 422 validation pipe, JSON errors, the HTTP latency histogram, `/health/*`,
 * `/metrics` (unless METRICS_PORT moves it) and OpenAPI at `/docs` (JSON at `/docs/json`; DOCS_ENABLED=false
 * removes them), security headers on every answer (@fastify/helmet: nosniff, CSP with frame-ancestors 'none',
 * X-Frame-Options DENY, Referrer-Policy no-referrer; HSTS over TLS only), and X-Forwarded-* believed only from
 * TRUSTED_PROXIES.
 */
export async function createHttpApp(opts: HttpAppOptions): Promise<NestFastifyApplication> {
  const { ctx } = opts;
  if (!fixNestInterceptorContext()) {
    ctx.logger.debug('nest: the installed @nestjs/core binds its interceptor chain its own way; its async-context fix is not applied');
  }
  const adapter = new FastifyAdapter({
    loggerInstance: ctx.logger,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    logController: new LogController({ requestIdLogLabel: 'reqId', disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // No JSON parser options here: registerJsonBodyParser (after app.init()) replaces the parser they would set.
    // Not `true` (anyone could write X-Forwarded-For): only TRUSTED_PROXIES hops (http-settings.ts).
    trustProxy: ctx.http.trustProxy,
  });
  if (opts.config) ctx.http.apply(opts.config);

  @Module({ imports: [KitModule.forRoot(ctx), opts.module] })
  class RootModule {}

  const app = await NestFactory.create<NestFastifyApplication>(RootModule, adapter, {
    logger: new PinoNestLogger(ctx.logger),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  fastify.decorateRequest('clientCertificate', undefined);

  // The hooks take Fastify's callback form: an async hook costs a promise and a microtask on every request.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(SECURITY_HEADERS);
    if (request.url.startsWith('/docs')) {
      const path = request.url.split('?', 1)[0];
      if (isDocsPath(path)) {
        if (!ctx.http.docsEnabled) return void reply.code(404).send({ message: `Cannot ${request.method} ${path}`, error: 'Not Found' });
        void reply.header('content-security-policy', DOCS_CSP);
      }
    }
    if (request.protocol === 'https') void reply.header('strict-transport-security', HSTS);
    if (
      (request.raw.socket as { encrypted?: boolean }).encrypted ||
      request.headers['ssl-client-cert'] !== undefined ||
      request.headers['x-forwarded-client-cert'] !== undefined
    ) {
      request.clientCertificate = clientCertificateOf(request, ctx.http.trustsPeer, ctx.http.clientCertProxyHosts);
    }
    done();
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    // Draining (readiness 503 until the server closes): each answer ends its keep-alive connection, so that a
    // client opens its next one where the load balancer now sends it, not on a connection the close will cut.
    if (ctx.http.draining) void reply.header('connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    ctx.metrics.httpDuration.observe({ method: request.method, route, status_code: String(reply.statusCode) }, seconds);
    const level = reply.statusCode >= 500 ? 'error' : 'info';
    // request.log is a child of ctx.logger (pino); the entry is only built when its level is on.
    if ((request.log as Logger).isLevelEnabled(level) && !route.startsWith('/health') && route !== '/metrics') {
      request.log[level](
        { method: request.method, url: request.url, route, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
        'request completed',
      );
    }
    done();
  });
  registerBodyDepthLimit(fastify);
  registerBodyDrain(fastify);
  registerPrewrittenJson(fastify);
  if (opts.configure) await opts.configure(fastify);

  app.useGlobalPipes(new ApiValidationPipe());
  app.useGlobalFilters(new JsonExceptionFilter());

  const document = buildOpenApiDocument(app, opts.docs);
  const contractCheck = responseContractCheck()?.(ctx.name, document);
  if (contractCheck) fastify.addHook('onSend', async (request, reply, payload) => contractCheck(request, reply, payload));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json', yamlDocumentUrl: 'docs/yaml' });

  await app.init();
  registerJsonBodyParser(fastify);
  registerFormBodyParser(fastify);
  return app;
}
