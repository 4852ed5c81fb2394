import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { createDataSource, DataSourceOptions as DtpDataSourceOptions, UnitOfWork } from '@dtp/database';
import { AuthConfig } from '../config';
import { authEntities } from '../entities';
import { authMigrations } from '../migrations';
import { AUTH_CONFIG } from '../tokens';

/** What `@dtp/database` needs for the auth database: the same for the service, its migrations and the CLI. */
export function authDatabase(config: AuthConfig, connection: { service?: string; poolSize?: number } = {}): DtpDataSourceOptions {
  return {
    url: config.DATABASE_URL,
    service: connection.service ?? 'auth',
    entities: authEntities,
    migrations: authMigrations,
    poolSize: connection.poolSize ?? config.DB_POOL_SIZE,
  };
}

/**
 * TypeORM options of the auth database, built by `@dtp/database` (createDataSource) so that pool size,
 * application name, timeouts and migrations table are those of every service.
 */
export function authDataSourceOptions(config: AuthConfig, connection?: { service?: string; poolSize?: number }): DataSourceOptions {
  return createDataSource(authDatabase(config, connection)).options;
}

/**
 * The auth database's DataSource for Nest (`TypeOrmModule.forRootAsync`), from the AUTH_CONFIG provider. It
 * connects once, at start (no retries: a database that cannot be reached stops the start, as before); Nest
 * closes it when the application closes.
 */
@Module({})
export class AuthDatabaseModule {
  static forRoot(connection: { service: string; poolSize?: number }): DynamicModule {
    return {
      module: AuthDatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AUTH_CONFIG],
          useFactory: (config: AuthConfig) => ({ ...authDataSourceOptions(config, connection), toRetry: () => false }),
        }),
      ],
      // The services' one transaction helper (its commit listeners wake the outbox relay).
      providers: [UnitOfWork],
      exports: [UnitOfWork],
      global: true,
    };
  }
}
