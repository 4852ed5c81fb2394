/**
 * The HTTP surface every service gets from the kit (issue 12, item 3): security headers on every answer, the
 * client address and TLS believed only from TRUSTED_PROXIES, /metrics on a port of its own (METRICS_PORT), /docs
 * removable (DOCS_ENABLED).
 */
import { Controller, Get, Module, Post, Body, Req, Res } from '@nestjs/common';
import { IsString } from 'class-validator';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { createHttpApp } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { HttpConfig } from './http-settings';
import { listenService, newServiceContext } from './listen';
import { BaseServiceConfig, RunningService } from './service';

class Named {
  @IsString() name!: string;
}

@Controller('surface')
class SurfaceController {
  @Get('json')
  json() {
    return { ok: true };
  }

  @Post('named')
  named(@Body() body: Named) {
    return body;
  }

  @Get('boom')
  boom() {
    throw new Error('kaboom');
  }

  @Get('whoami')
  whoami(@Req() req: FastifyRequest) {
    return { ip: req.ip, protocol: req.protocol };
  }

  /** An HTML answer with a policy of its own (as a public page would set). */
  @Get('page')
  page(@Res() reply: FastifyReply) {
    return reply.header('content-security-policy', "default-src 'self'; frame-ancestors 'none'").type('text/html').send('<p>hi</p>');
  }
}

@Module({ controllers: [SurfaceController] })
class SurfaceModule {}

const docs = { title: 't', description: 'd', version: '1' };

async function injectApp(config?: HttpConfig): Promise<NestFastifyApplication> {
  const ctx = newServiceContext('surface', pino({ level: 'silent' }));
  return createHttpApp({ ctx, module: SurfaceModule, docs, config });
}

/** A real listener, configured through listenService from an env map, as a service is. */
async function listening(env: Record<string, string> = {}): Promise<RunningService> {
  const ctx = newServiceContext('surface', pino({ level: 'silent' }));
  const app = await createHttpApp({ ctx, module: SurfaceModule, docs });
  const config = loadConfig('surface', BaseServiceConfig, { PORT: '0', HOST: '127.0.0.1', ...env });
  return listenService({ name: 'surface', app, config, ctx });
}

/** `Content-Security-Policy` as a map of directive -> sources. */
function csp(header: string | string[] | undefined): Record<string, string[]> {
  const text = Array.isArray(header) ? header.join(';') : (header ?? '');
  return Object.fromEntries(
    text
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== '')
      .map(([name, ...sources]) => [name.toLowerCase(), sources]),
  );
}

describe('security headers', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await injectApp();
  });
  afterAll(() => app.close());

  const expectApiHeaders = (headers: Record<string, unknown>, what: string) => {
    const policy = csp(headers['content-security-policy'] as string);
    expect([what, headers['x-content-type-options']]).toEqual([what, 'nosniff']);
    expect([what, policy['frame-ancestors'], policy['default-src']]).toEqual([what, ["'none'"], ["'none'"]]);
    expect([what, headers['x-frame-options']]).toEqual([what, 'DENY']);
    expect([what, headers['referrer-policy']]).toEqual([what, 'no-referrer']);
    // Plain HTTP: no HSTS.
    expect([what, headers['strict-transport-security']]).toEqual([what, undefined]);
  };

  it('are on a JSON answer, the probes and /metrics', async () => {
    for (const url of ['/surface/json', '/health/live', '/health/ready', '/metrics']) {
      const res = await app.inject({ method: 'GET', url });
      expect([url, res.statusCode]).toEqual([url, 200]);
      expectApiHeaders(res.headers, url);
    }
  });

  it('are on error answers: 404, 422, malformed JSON, 500', async () => {
    const answers = [
      await app.inject({ method: 'GET', url: '/nope' }),
      await app.inject({ method: 'POST', url: '/surface/named', payload: { name: 1 } }),
      await app.inject({ method: 'POST', url: '/surface/named', headers: { 'content-type': 'application/json' }, payload: '{"name":' }),
      await app.inject({ method: 'GET', url: '/surface/boom' }),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([404, 422, 422, 500]);
    answers.forEach((r, i) => expectApiHeaders(r.headers, `answer ${i} (${r.statusCode})`));
  });

  it('let a route that serves HTML set its own Content-Security-Policy', async () => {
    const res = await app.inject({ method: 'GET', url: '/surface/page' });
    expect(csp(res.headers['content-security-policy'] as string)).toEqual({ 'default-src': ["'self'"], 'frame-ancestors': ["'none'"] });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('keep Swagger UI at /docs working: a policy that allows its own scripts, styles and API calls, never framed', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const policy = csp(page.headers['content-security-policy'] as string);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // What the page needs, and that the policy allows it: every script is an external file of /docs (no inline
    // script, which script-src 'self' would block) and loads; inline <style> needs 'unsafe-inline'; the API is same-origin.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    expect(policy['script-src']).toEqual(["'self'"]);
    for (const [, attrs, inline] of scripts) {
      expect(inline.trim()).toBe('');
      const src = /src=["']([^"']+)["']/.exec(attrs)?.[1];
      expect(src).toBeDefined();
      expect(src).not.toMatch(/^(https?:)?\/\//);
      const asset = await app.inject({ method: 'GET', url: new URL(src!, 'http://x/docs').pathname });
      expect([src, asset.statusCode]).toEqual([src, 200]);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    }
    if (/<style/.test(page.body)) expect(policy['style-src']).toContain("'unsafe-inline'");
    const styles = [...page.body.matchAll(/<link[^>]+href=["']([^"']+\.css)["']/g)].map((m) => m[1]);
    for (const href of styles) {
      expect(href).not.toMatch(/^(https?:)?\/\//);
      expect((await app.inject({ method: 'GET', url: new URL(href, 'http://x/docs').pathname })).statusCode).toBe(200);
    }
    expect(policy['style-src']).toContain("'self'");
    expect(policy['connect-src']).toEqual(["'self'"]);
    const json = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(csp(json.headers['content-security-policy'] as string)['frame-ancestors']).toEqual(["'none'"]);
  });
});

describe('TRUSTED_PROXIES: client address and TLS', () => {
  const whoami = async (app: NestFastifyApplication, remoteAddress: string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'GET', url: '/surface/whoami', remoteAddress, headers });
    return { ...(res.json() as { ip: string; protocol: string }), hsts: res.headers['strict-transport-security'] };
  };

  it('by default (none): request.ip is the socket peer whatever X-Forwarded-For says, and X-Forwarded-Proto is ignored', async () => {
    const app = await injectApp();
    try {
      expect(await whoami(app, '127.0.0.1', { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' })).toEqual({
        ip: '127.0.0.1',
        protocol: 'http',
        hsts: undefined,
      });
      expect((await whoami(app, '203.0.113.9', { 'x-forwarded-for': '198.51.100.7' })).ip).toBe('203.0.113.9');
    } finally {
      await app.close();
    }
  });

  it('honours X-Forwarded-For and -Proto from a trusted hop only, walking the chain from the right', async () => {
    const app = await injectApp({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
    try {
      // From the trusted proxy: its entry is believed, HSTS is sent because it says the client came over TLS.
      expect(await whoami(app, '127.0.0.1', { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' })).toEqual({
        ip: '198.51.100.7',
        protocol: 'https',
        hsts: expect.stringMatching(/^max-age=\d+/),
      });
      // A spoofed entry left of an untrusted one is not believed; trusted hops are skipped.
      expect((await whoami(app, '127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.1.2.3' })).ip).toBe('198.51.100.7');
      // Plain HTTP through the trusted proxy: no HSTS.
      expect((await whoami(app, '127.0.0.1', { 'x-forwarded-proto': 'http' })).hsts).toBeUndefined();
      // A client that reaches the service directly cannot pick its address or claim TLS.
      expect(await whoami(app, '203.0.113.9', { 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' })).toEqual({
        ip: '203.0.113.9',
        protocol: 'http',
        hsts: undefined,
      });
      // IPv4-mapped IPv6 peers are the same proxy.
      expect((await whoami(app, '::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.8' })).ip).toBe('198.51.100.8');
    } finally {
      await app.close();
    }
  });

  it('reaches a listening service from its config (listenService), over real sockets', async () => {
    const get = (s: RunningService) => fetch(`${s.url}/surface/whoami`, { headers: { 'x-forwarded-for': '198.51.100.7' } }).then((r) => r.json());
    const plain = await listening();
    const trusting = await listening({ TRUSTED_PROXIES: 'loopback' });
    try {
      expect(await get(plain)).toEqual({ ip: '127.0.0.1', protocol: 'http' });
      expect(await get(trusting)).toEqual({ ip: '198.51.100.7', protocol: 'http' });
    } finally {
      await plain.close();
      await trusting.close();
    }
  });

  it('is validated at start-up: IPs, CIDRs and loopback/linklocal/uniquelocal only', () => {
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '1', TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1, ::1, fd00::/8, loopback' }).TRUSTED_PROXIES).toContain(
      'loopback',
    );
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '1' }).TRUSTED_PROXIES).toBe('');
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '*', '10.0.0.1, nope', 'true']) {
      let problems: string[] = [];
      try {
        loadConfig('svc', BaseServiceConfig, { PORT: '1', TRUSTED_PROXIES: bad });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        problems = (err as ConfigError).problems;
      }
      expect([bad, problems.length, problems[0]]).toEqual([bad, 1, expect.stringMatching(/^TRUSTED_PROXIES: /)]);
    }
  });
});

describe('METRICS_PORT: /metrics on a listener of its own', () => {
  it('unset: /metrics on the main port, as before', async () => {
    const service = await listening();
    try {
      expect(service.metricsUrl).toBeUndefined();
      const res = await fetch(`${service.url}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('process_cpu_user_seconds_total');
    } finally {
      await service.close();
    }
  });

  it('set: served on that port (and only /metrics there), a JSON 404 on the main port; both close with the service', async () => {
    const service = await listening({ METRICS_PORT: '0' });
    expect(service.metricsUrl).toMatch(/^http:\/\/localhost:\d+\/metrics$/);
    const metricsUrl = service.metricsUrl!;
    try {
      expect(new URL(metricsUrl).port).not.toBe(new URL(service.url).port);
      await fetch(`${service.url}/surface/json`);
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await scraped.text()).toMatch(/http_request_duration_seconds_count\{.*route="\/surface\/json".*\} \d+/);

      const main = await fetch(`${service.url}/metrics`);
      expect(main.status).toBe(404);
      expect(await main.json()).toEqual({ message: 'Cannot GET /metrics', error: 'Not Found' });
      expect(main.headers.get('x-content-type-options')).toBe('nosniff');
      // Nothing else is served on the metrics port.
      for (const path of ['/health/ready', '/docs', '/surface/json', '/metrics/x']) {
        expect([path, (await fetch(new URL(path, metricsUrl))).status]).toEqual([path, 404]);
      }
      expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    } finally {
      await service.close();
    }
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });

  it('is a port number', () => {
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '1', METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '1' }).METRICS_PORT).toBeUndefined();
    expect(() => loadConfig('svc', BaseServiceConfig, { PORT: '1', METRICS_PORT: 'metrics' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig('svc', BaseServiceConfig, { PORT: '1', METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});

describe('DOCS_ENABLED', () => {
  const docPaths = ['/docs', '/docs/', '/docs/json', '/docs/yaml', '/docs/swagger-ui-init.js', '/docs/json?x=1'];

  it('true by default: /docs and its documents are served', async () => {
    const service = await listening();
    try {
      for (const path of ['/docs', '/docs/json', '/docs/yaml']) expect([path, (await fetch(`${service.url}${path}`)).status]).toEqual([path, 200]);
    } finally {
      await service.close();
    }
  });

  it('false: /docs and everything under it answer a JSON 404 like an unknown route; the API is unchanged', async () => {
    const service = await listening({ DOCS_ENABLED: 'false' });
    try {
      for (const path of docPaths) {
        const res = await fetch(`${service.url}${path}`);
        expect([path, res.status]).toEqual([path, 404]);
        expect(await res.json()).toEqual({ message: expect.stringMatching(/^Cannot GET \/docs/), error: 'Not Found' });
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await fetch(`${service.url}/surface/json`)).status).toBe(200);
      // Only the /docs tree: a route whose name merely starts with "docs" is not caught.
      expect((await fetch(`${service.url}/docsx`)).status).toBe(404);
    } finally {
      await service.close();
    }
  });

  it('reads true/false (also 1/0, yes/no) and refuses anything else', () => {
    const read = (v: string) => loadConfig('svc', BaseServiceConfig, { PORT: '1', DOCS_ENABLED: v }).DOCS_ENABLED;
    expect([read('false'), read('FALSE'), read('0'), read('no'), read('true'), read('1'), read('yes')]).toEqual([false, false, false, false, true, true, true]);
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '1' }).DOCS_ENABLED).toBe(true);
    expect(() => read('off-ish')).toThrow(/DOCS_ENABLED must be true or false/);
  });
});
