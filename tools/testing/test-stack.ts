import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import pino from 'pino';
import { InProcessTransport } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import { searchService } from '@dtp/search';
import { gisService } from '@dtp/gis';
import { createTestDatabase, ServiceName, TEST_ADMIN_TOKEN, TEST_AUDIENCES, TEST_ISSUER, TestStack, TestStackOptions } from '@dtp/testing';

/*
 * The four services started in the test's own process: part of the test harness (it imports the apps, which a
 * library may not). Tests import it as `@dtp/test-stack`; the stack's shape and names are in `@dtp/testing`.
 */

function envOf(
  env: Record<string, string> | ((urls: Partial<Record<ServiceName, string>>) => Record<string, string>) | undefined,
  urls: Partial<Record<ServiceName, string>>,
): Record<string, string> {
  return typeof env === 'function' ? env(urls) : (env ?? {});
}

/**
 * Starts the named services in this process, each with a fresh database on the test PostgreSQL, real
 * migrations, ephemeral ports and one shared event transport (in-process unless given). Auth always starts
 * first when asked for, so the others can fetch its JWKS.
 */
export async function startTestStack(opts: TestStackOptions): Promise<TestStack> {
  const logger = opts.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const transport = opts.transport ?? new InProcessTransport((err) => logger.error({ err }, 'handler failed'));
  const stack: TestStack = {
    urls: {},
    services: {},
    databases: {},
    transport,
    close: async () => {
      for (const name of ['gis', 'search', 'platform', 'auth'] as const) await stack.services[name]?.close();
      if (!opts.transport) await transport.close();
    },
  };
  // A directory of its own per stack (two stacks started in the same millisecond once shared one).
  const blobDir = mkdtempSync(path.join(tmpdir(), 'dtp-test-blobs-'));
  // Platform and search together share one custody signing key, as `npm start` and the manifests give them: platform
  // signs checkpoints with it, search origin credentials. A stack without search keeps platform's generated key.
  const custodyKey =
    opts.services.includes('platform') && opts.services.includes('search')
      ? JSON.stringify({ ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }), kid: `test-custody-${process.pid}` })
      : undefined;
  const common = (name: ServiceName, db: string): Record<string, string> => ({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: db,
    AUTH_ISSUER: TEST_ISSUER,
    AUTH_JWKS_URL: `${stack.urls.auth ?? 'http://127.0.0.1:9'}/.well-known/jwks.json`,
    AUTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    PLATFORM_AUDIENCE: TEST_AUDIENCES.platform,
    SEARCH_AUDIENCE: TEST_AUDIENCES.search,
    GIS_AUDIENCE: TEST_AUDIENCES.gis,
    BLOB_STORE_DIR: blobDir,
    // Tests' webhook receivers listen on 127.0.0.1 over http (the SSRF tests set it to false).
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...(custodyKey && (name === 'platform' || name === 'search') ? { CUSTODY_SIGNING_KEY: custodyKey } : {}),
    ...envOf(opts.env?.[name], stack.urls),
  });
  const order = (['auth', 'platform', 'search', 'gis'] as const).filter((n) => opts.services.includes(n));
  try {
    for (const name of order) {
      const db = await createTestDatabase(name);
      stack.databases[name] = db;
      const def = { auth: authService, platform: platformService, search: searchService, gis: gisService }[name];
      const config = loadConfig(name, def.configClass as new () => object, common(name, db));
      // Each definition is typed with its own config class; the loaded config matches it by construction.
      const d = def as unknown as {
        migrate: (c: object, l: Logger) => Promise<void>;
        start: (c: object, deps: object, l: Logger) => Promise<RunningService>;
      };
      await d.migrate(config, logger);
      const service = await d.start(config, { transport }, logger.child({ service: name }));
      stack.services[name] = service;
      stack.urls[name] = service.url;
    }
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
