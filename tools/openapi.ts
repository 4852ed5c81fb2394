/**
 * `npm run openapi [-- --check]`: writes each service's OpenAPI 3.1 document to `openapi/<service>.json`, built
 * from the code, then the SDK's types generated from them (libs/sdk/src/generated, tools/sdk-generate.ts), (Nest's preview mode: no database, no broker, nothing listens). The committed files are what
 * integrators and the SDK generator (libs/sdk) read; a test fails when they differ from what the code builds.
 *
 * The documents are built with each service's default configuration (addresses on localhost), never with the
 * caller's environment, so that the files are the same on every machine. A running service serves its own
 * document, with its configured addresses, at `/docs/json`.
 *
 *   --check   write nothing; exit 1 naming each file that is stale
 *
 * Exit codes: 0 written (or up to date with --check), 1 stale or failed, 2 bad usage.
 */
import 'reflect-metadata';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig, ServiceDefinition, BaseServiceConfig } from '@dtp/service-kit';

export const OPENAPI_SERVICES = ['auth', 'platform', 'search', 'gis'] as const;
export type OpenApiService = (typeof OPENAPI_SERVICES)[number];
export const OPENAPI_DIR = path.join(__dirname, '..', 'openapi');

/** The fixed environment the committed documents are built with (only what config validation requires). */
const DOCUMENT_ENV: Record<string, string> = {
  DATABASE_URL: 'postgres://openapi@localhost:5432/openapi',
  AUTH_ADMIN_TOKEN: 'openapi-document-only',
};

const definitions: Record<OpenApiService, () => Promise<ServiceDefinition<BaseServiceConfig, unknown>>> = {
  auth: async () => (await import('@dtp/auth')).authService as unknown as ServiceDefinition<BaseServiceConfig, unknown>,
  platform: async () => (await import('@dtp/platform')).platformService as unknown as ServiceDefinition<BaseServiceConfig, unknown>,
  search: async () => (await import('@dtp/search')).searchService as unknown as ServiceDefinition<BaseServiceConfig, unknown>,
  gis: async () => (await import('@dtp/gis')).gisService as unknown as ServiceDefinition<BaseServiceConfig, unknown>,
};

/** Builds one service's document as the committed file holds it. */
export async function buildDocument(service: OpenApiService): Promise<OpenAPIObject> {
  const def = await definitions[service]();
  return def.openapi(loadConfig(service, def.configClass, DOCUMENT_ENV));
}

export const documentText = (doc: OpenAPIObject) => `${JSON.stringify(doc, null, 2)}\n`;
export const documentPath = (service: OpenApiService) => path.join(OPENAPI_DIR, `${service}.json`);

const USAGE = 'usage: npm run openapi [-- --check]\n';

async function main(argv: string[]): Promise<number> {
  let check = false;
  try {
    const { values } = parseArgs({ args: argv, options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    check = values.check ?? false;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  mkdirSync(OPENAPI_DIR, { recursive: true });
  let stale = 0;
  for (const service of OPENAPI_SERVICES) {
    const text = documentText(await buildDocument(service));
    const file = documentPath(service);
    let current: string | null = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = null;
    }
    if (current === text) continue;
    if (check) {
      stale += 1;
      process.stderr.write(`stale: ${path.relative(process.cwd(), file)} (run npm run openapi)\n`);
    } else {
      writeFileSync(file, text);
      process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
    }
  }
  // The SDK's generated types follow the documents (loaded here only: openapi-typescript is an ES module Jest cannot load).
  const sdk = await import('./sdk-generate');
  if (check) {
    for (const name of await sdk.staleSdkFiles()) {
      stale += 1;
      process.stderr.write(`stale: ${path.relative(process.cwd(), path.join(sdk.GENERATED_DIR, name))} (run npm run openapi)\n`);
    }
  } else {
    const stale = await sdk.staleSdkFiles();
    await sdk.writeSdkTypes();
    for (const name of stale) process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(sdk.GENERATED_DIR, name))}\n`);
  }
  return stale > 0 ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
