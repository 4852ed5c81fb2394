import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DatabaseModule, DataSourceOptions } from '@dtp/database';
import { EventsModule, EventsModuleOptions } from '@dtp/events';
import { BaseServiceConfig, ServiceConfigModule } from '@dtp/service-kit';

export interface ServiceCoreOptions<C extends BaseServiceConfig> {
  /** The service's name: the config namespace, the database's application name, the outbox relay's lock. */
  name: string;
  configClass: new () => C;
  /** The validated config (loaded before Nest starts). */
  config: C;
  /** The service's own database: DatabaseModule (DataSource, UnitOfWork, readiness `database`). */
  database: DataSourceOptions;
  /** Its events: EventsModule (the transport, its consumer group, the outbox relay when it publishes); none for a CLI. */
  events?: EventsModuleOptions;
  /** Global providers of the service beside these (a config token, a blob store), exported to every feature. */
  providers?: Provider[];
  exports?: Array<string | symbol | Provider>;
}

/**
 * What every feature of a service stands on, in one global module: its validated config (`@nestjs/config`, and
 * the config class as a provider), its own database, its events, and the service's own global providers. The
 * one shape of auth, platform, search and gis (defineService builds it).
 */
@Module({})
export class ServiceCoreModule {
  static forRoot<C extends BaseServiceConfig>(opts: ServiceCoreOptions<C>): DynamicModule {
    return {
      module: ServiceCoreModule,
      global: true,
      imports: [
        ServiceConfigModule.forRoot(opts.name, opts.configClass, opts.config),
        DatabaseModule.forRoot(opts.database),
        ...(opts.events ? [EventsModule.forRoot(opts.events)] : []),
      ],
      providers: opts.providers ?? [],
      exports: opts.exports ?? [],
    };
  }
}
