/**
 * `npm run migrate [--] [options] [service ...]` (and `node dist/tools/migrate.js ...` in the images, where a
 * Kubernetes Job runs it): applies each named service's migrations (all four when none is named) through its
 * `ServiceDefinition.migrate`, with that service's config read from the environment.
 *
 * The database of each service: `<SERVICE>_DATABASE_URL` when set; otherwise `DATABASE_URL` as it is when one
 * service is named (a Job); otherwise `DATABASE_URL`'s server with the database `dtp_<service>` (a laptop).
 *
 * Options:
 *   --create-database  create a missing database first (needs CREATEDB; the Kubernetes overlays create them
 *                      up front instead)
 *   --wait             apply nothing: wait until every migration of each service has been applied (an init
 *                      container uses this so that a pod never serves an older schema), exit 1 at --timeout
 *   --timeout SECONDS  for --wait (default 600)
 *
 * Exit code 0 on success, 1 on any failure (the message names the service and the cause), 2 on bad usage.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { BaseServiceConfig, createLogger, loadConfig, ServiceDefinition } from '@dtp/service-kit';

export const SERVICE_NAMES = ['auth', 'platform', 'search', 'gis'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

interface Loaded {
  def: ServiceDefinition<BaseServiceConfig & { DATABASE_URL: string }, unknown>;
  migrations: Function[];
}

// Loaded on demand: an image holds one app, and asks only for that one.
const loaders: Record<ServiceName, () => Promise<Loaded>> = {
  auth: async () => ({
    def: (await import('@dtp/auth')).authService as Loaded['def'],
    migrations: (await import('../apps/auth/src/migrations')).authMigrations,
  }),
  platform: async () => ({
    def: (await import('@dtp/platform')).platformService as Loaded['def'],
    migrations: (await import('../apps/platform/src/migrations')).platformMigrations,
  }),
  search: async () => ({
    def: (await import('@dtp/search')).searchService as Loaded['def'],
    migrations: (await import('../apps/search/src/migrations')).searchMigrations,
  }),
  gis: async () => ({
    def: (await import('@dtp/gis')).gisService as Loaded['def'],
    migrations: (await import('../apps/gis/src/migrations')).gisMigrations,
  }),
};

export interface MigrateArgs {
  services: ServiceName[];
  createDatabase: boolean;
  wait: boolean;
  timeoutSeconds: number;
}

export function parseArgs(argv: string[]): MigrateArgs {
  const args: MigrateArgs = { services: [], createDatabase: false, wait: false, timeoutSeconds: 600 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--create-database') args.createDatabase = true;
    else if (a === '--wait') args.wait = true;
    else if (a === '--timeout') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n <= 0) throw new UsageError('--timeout needs a whole number of seconds');
      args.timeoutSeconds = n;
    } else if ((SERVICE_NAMES as readonly string[]).includes(a)) {
      if (!args.services.includes(a as ServiceName)) args.services.push(a as ServiceName);
    } else throw new UsageError(`unknown argument "${a}" (services: ${SERVICE_NAMES.join(', ')})`);
  }
  if (args.services.length === 0) args.services = [...SERVICE_NAMES];
  return args;
}

export class UsageError extends Error {}

/** The database URL a service's migrations run against (see the header). */
export function databaseUrlFor(name: ServiceName, count: number, env: Record<string, string | undefined>): string {
  const own = env[`${name.toUpperCase()}_DATABASE_URL`];
  if (own) return own;
  const shared = env.DATABASE_URL;
  if (!shared) throw new Error(`${name}: set ${name.toUpperCase()}_DATABASE_URL or DATABASE_URL`);
  return count === 1 ? shared : withDatabase(shared, `dtp_${name}`);
}

/** TypeORM's name of a migration: its `name` property, else its class name. */
function migrationName(cls: Function): string {
  const instance = new (cls as new () => { name?: string })();
  return instance.name ?? cls.name;
}

/** Names of the migrations not yet recorded in the service's `schema_migrations` table. */
export async function pendingMigrations(url: string, migrations: Function[]): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const table = await client.query(`SELECT to_regclass('schema_migrations') AS t`);
    const applied = new Set<string>();
    if (table.rows[0].t !== null) {
      for (const row of (await client.query('SELECT name FROM schema_migrations')).rows) applied.add(row.name as string);
    }
    return migrations.map(migrationName).filter((n) => !applied.has(n));
  } finally {
    await client.end();
  }
}

export async function migrate(args: MigrateArgs, env: Record<string, string | undefined> = process.env): Promise<void> {
  for (const name of args.services) {
    const logger = createLogger(`migrate-${name}`, env.LOG_LEVEL ?? 'info');
    const { def, migrations } = await loaders[name]();
    const url = databaseUrlFor(name, args.services.length, env);
    if (args.wait) {
      const until = Date.now() + args.timeoutSeconds * 1000;
      for (;;) {
        let pending: string[];
        try {
          pending = await pendingMigrations(url, migrations);
        } catch (err) {
          pending = [`(database not reachable: ${err instanceof Error ? err.message : String(err)})`];
        }
        if (pending.length === 0) break;
        if (Date.now() > until) throw new Error(`${name}: migrations still pending after ${args.timeoutSeconds} s: ${pending.join(', ')}`);
        logger.info({ pending }, 'waiting for migrations');
        await new Promise((r) => setTimeout(r, 2000));
      }
      logger.info('schema is up to date');
      continue;
    }
    const config = loadConfig(name, def.configClass, { ...env, DATABASE_URL: url });
    if (args.createDatabase) await ensureDatabase(config.DATABASE_URL);
    await def.migrate(config, logger);
    logger.info('migrations done');
  }
}

if (require.main === module) {
  let args: MigrateArgs;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`migrate: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  migrate(args).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
