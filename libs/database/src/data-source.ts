import { Client } from 'pg';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import type { DataSourceOptions as TypeOrmOptions } from 'typeorm';

type PostgresConnectionOptions = Extract<TypeOrmOptions, { type: 'postgres' }>;
import type { Logger } from 'pino';

export interface DataSourceOptions {
  url: string;
  service: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: Function[];
  poolSize?: number;
}

/** TypeORM options for one service's own database (DatabaseModule and createDataSource). */
export function postgresOptions(opts: DataSourceOptions): PostgresConnectionOptions {
  return {
    type: 'postgres',
    url: opts.url,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // A database that silently drops packets must not hang requests: a connection that cannot be made within 5 s
    // fails, and the kit answers 503 (DESIGN.md; libs/service-kit errors.ts).
    extra: { max: opts.poolSize ?? 10, application_name: `dtp-${opts.service}`, connectionTimeoutMillis: 5000 },
  };
}

/** A TypeORM DataSource for one service's own database, outside Nest (migrations, tools). Schema changes only through migrations. */
export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource(postgresOptions(opts));
}

/** Creates the database named in `url` when it does not exist yet (for `npm start` and tests). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[a-zA-Z0-9_]+$/.test(name)) throw new Error(`refusing to create database with unusual name "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

/** Applies pending migrations of one service; logs each one applied. */
export async function runMigrations(opts: DataSourceOptions, logger?: Logger): Promise<string[]> {
  const ds = createDataSource({ ...opts, poolSize: 2 });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    for (const m of applied) logger?.info({ migration: m.name }, 'migration applied');
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** Readiness probe: one round trip to the database. */
export function databaseCheck(ds: DataSource): () => Promise<void> {
  return async () => {
    await ds.query('SELECT 1');
  };
}

/** Replaces the database name in a server or database URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
