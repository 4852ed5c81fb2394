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
 * Applying takes a PostgreSQL advisory lock per service (`migrationLockKey`) in that service's database for the
 * whole run, so runs that overlap (the init containers of several pods starting together, a rollout beside a
 * laptop run) take turns: the first applies, the others then find nothing pending. The lock is session-level on
 * a connection of its own: a run that dies releases it with its connection.
 *
 * Exit code 0 on success, 1 on any failure (the message names the service and the cause), 2 on bad usage.
 */
import 'reflect-metadata';
import { Argument, Command, CommanderError, InvalidArgumentError } from 'commander';
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

/** The command line (commander): `--help` prints it and exits 0; a usage error exits 2 before any connection. */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description(
      "Applies each named service's migrations (all four when none is named).\n" +
        'Database: <SERVICE>_DATABASE_URL, else DATABASE_URL as it is for one service, else its server with dtp_<service>.\n' +
        'Exit codes: 0 done, 1 failure (naming the service and the cause), 2 usage.',
    )
    .addArgument(new Argument('[services...]', 'services to migrate').choices(SERVICE_NAMES))
    .option('--create-database', 'create a missing database first (needs CREATEDB)')
    .option('--wait', 'apply nothing: wait until every migration has been applied (init containers); exit 1 at --timeout')
    .option(
      '--timeout <seconds>',
      'for --wait',
      (v) => {
        const n = Number(v);
        if (!/^\d+$/.test(v) || n <= 0) throw new InvalidArgumentError('a whole number of seconds');
        return n;
      },
      600,
    );
}

/** Parsed arguments; throws UsageError (with commander's message) on bad usage, HelpShown after --help. */
export function parseArgs(argv: string[], io: { out(s: string): void; err(s: string): void } = { out: () => undefined, err: () => undefined }): MigrateArgs {
  const command = migrateCommand()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => undefined });
  try {
    command.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) throw new HelpShown();
    if (err instanceof CommanderError) throw new UsageError(err.message.replace(/^error: /, ''));
    throw err;
  }
  const o = command.opts<{ createDatabase?: boolean; wait?: boolean; timeout: number }>();
  const services = [...new Set(command.processedArgs[0] as ServiceName[])];
  return {
    services: services.length > 0 ? services : [...SERVICE_NAMES],
    createDatabase: o.createDatabase ?? false,
    wait: o.wait ?? false,
    timeoutSeconds: o.timeout,
  };
}

/** `--help` was asked for (and printed). */
export class HelpShown extends Error {}

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

/** The advisory lock key (an argument of `hashtext`) that serialises migration runs of one service. */
export function migrationLockKey(name: ServiceName): string {
  return `dtp-migrate:${name}`;
}

/**
 * Runs `apply` while holding the service's migration lock in the database at `url`. Logs when another run holds
 * it and this one waits.
 */
export async function withMigrationLock<T>(url: string, name: ServiceName, logger: { info(msg: string): void }, apply: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: `dtp-migrate-${name}` });
  await client.connect();
  try {
    const key = migrationLockKey(name);
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!got.rows[0].ok) {
      logger.info('another migration run of this service holds the lock: waiting for it');
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    }
    try {
      return await apply();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]);
    }
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
    await withMigrationLock(config.DATABASE_URL, name, logger, () => def.migrate(config, logger));
    logger.info('migrations done');
  }
}

if (require.main === module) {
  let args: MigrateArgs;
  try {
    args = parseArgs(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) });
  } catch (err) {
    if (err instanceof HelpShown) process.exit(0);
    process.stderr.write(`migrate: ${err instanceof Error ? err.message : String(err)}\n${migrateCommand().helpInformation()}`);
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
