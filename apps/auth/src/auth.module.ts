import { DynamicModule, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { databaseCheck } from '@dtp/database';
import { EventsModule, EventTransport } from '@dtp/events';
import { Readiness } from '@dtp/service-kit';
import { AdminModule } from './admin/admin.module';
import { AuthConfig } from './config';
import { AuthConfigModule } from './config.module';
import { AuthDatabaseModule } from './database/auth-database.module';
import { KeyMaintenanceModule } from './keys/key-maintenance';
import { ParticipantsModule } from './participants/participants.module';
import { RecentRevocationsAnnouncer } from './participants/recent-revocations.announcer';
import { TokenModule } from './token/token.module';
import { AUTH_CONFIG, AUTH_EVENT_TRANSPORT } from './tokens';

export { AUTH_CONFIG, AUTH_EVENT_TRANSPORT };

/** Readiness of the service: its database (EventsModule adds the event transport). */
@Injectable()
export class AuthReadiness implements OnModuleInit {
  constructor(
    @Inject(Readiness) private readonly readiness: Readiness,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

  onModuleInit(): void {
    this.readiness.add('database', databaseCheck(this.ds));
  }
}

export interface AuthModuleOptions {
  config: AuthConfig;
  transport: EventTransport;
}

/**
 * The auth service: token endpoint and JWKS, admin API, signing key upkeep (the first key at start, scheduled
 * rotation), and on the in-process bus the re-announcement of recent revocations. Needs the kit's module (logger,
 * readiness), which createHttpApp provides.
 */
@Module({})
export class AuthModule {
  static forRoot({ config, transport }: AuthModuleOptions): DynamicModule {
    return {
      module: AuthModule,
      imports: [
        AuthConfigModule.forRoot(config),
        AuthDatabaseModule.forRoot({ service: 'auth', poolSize: config.DB_POOL_SIZE }),
        // The outbox relay (participant.onboarded, client.revoked), a lifecycle provider; auth consumes nothing.
        EventsModule.forRoot({ service: 'auth', transport, databaseUrl: config.DATABASE_URL, relay: { retentionHours: config.OUTBOX_RETENTION_HOURS, lingerMs: config.OUTBOX_LINGER_MS } }),
        TokenModule,
        AdminModule,
        KeyMaintenanceModule,
        ParticipantsModule,
      ],
      providers: [{ provide: AUTH_EVENT_TRANSPORT, useValue: transport }, AuthReadiness, RecentRevocationsAnnouncer],
    };
  }
}
