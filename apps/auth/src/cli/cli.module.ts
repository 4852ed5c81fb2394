import { DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@dtp/service-host';
import { authDatabase } from '../app';
import { AuthConfig } from '../config';
import { ClientCertificatesModule } from '../certificates/client-certificates.module';
import { KeysModule } from '../keys/keys.module';
import { ParticipantsModule } from '../participants/participants.module';
import { AUTH_CONFIG } from '../tokens';

/**
 * What `auth:cli` runs on: the service's own core (config, database; no events: the relay is the service's) and
 * its participants and keys modules, over a small pool of its own (`dtp-auth-cli` in pg_stat_activity). No HTTP,
 * no start-up work: nothing happens unless a command asks.
 */
@Module({})
export class AuthCliModule {
  static forRoot(config: AuthConfig, connection: { poolSize?: number } = {}): DynamicModule {
    return {
      module: AuthCliModule,
      imports: [
        ServiceCoreModule.forRoot({
          name: 'auth',
          configClass: AuthConfig,
          config,
          database: authDatabase(config, { service: 'auth-cli', poolSize: connection.poolSize ?? 2 }),
          providers: [{ provide: AUTH_CONFIG, useExisting: AuthConfig }],
          exports: [AUTH_CONFIG],
        }),
        ParticipantsModule,
        KeysModule,
        ClientCertificatesModule,
      ],
      exports: [ParticipantsModule, KeysModule, ClientCertificatesModule],
    };
  }
}
