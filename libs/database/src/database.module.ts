import { DynamicModule, Global, Inject, Injectable, Module, OnModuleInit, Optional } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Readiness } from '@dtp/service-kit';
import { DataSourceOptions, databaseCheck, postgresOptions } from './data-source';
import { UnitOfWork } from './unit-of-work';

/** Readiness `database`: one round trip (a context without the kit's module, such as a CLI, has no readiness). */
@Injectable()
class DatabaseReadiness implements OnModuleInit {
  constructor(
    private readonly ds: DataSource,
    @Optional() @Inject(Readiness) private readonly readiness?: Readiness,
  ) {}

  onModuleInit(): void {
    this.readiness?.add('database', databaseCheck(this.ds));
  }
}

/**
 * A service's own database, the Nest way: `TypeOrmModule.forRootAsync` (the DataSource, its EntityManager and
 * `TypeOrmModule.forFeature` repositories; closed by Nest at shutdown), the UnitOfWork every feature uses for
 * transactions, and the readiness check. Start-up fails at once when the database cannot be reached (no
 * retries here: the orchestrator restarts the process, and `npm start` reports it).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(opts: DataSourceOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...postgresOptions(opts), retryAttempts: 0, manualInitialization: false }),
        }),
      ],
      providers: [UnitOfWork, DatabaseReadiness],
      exports: [UnitOfWork],
    };
  }
}
