import { DynamicModule, Module } from '@nestjs/common';
import { AuthConfig } from '../config';
import { AuthConfigModule } from '../config.module';
import { AuthDatabaseModule } from '../database/auth-database.module';
import { KeysModule } from '../keys/keys.module';
import { ParticipantsModule } from '../participants/participants.module';

/**
 * What `auth:cli` runs on: the service's own participants and keys modules over a small pool of its own
 * (`dtp-auth-cli` in pg_stat_activity). No HTTP, no start-up work: nothing happens unless a command asks.
 */
@Module({})
export class AuthCliModule {
  static forRoot(config: AuthConfig, connection: { poolSize?: number } = {}): DynamicModule {
    return {
      module: AuthCliModule,
      imports: [
        AuthConfigModule.forRoot(config),
        AuthDatabaseModule.forRoot({ service: 'auth-cli', poolSize: connection.poolSize ?? 2 }),
        ParticipantsModule,
        KeysModule,
      ],
      exports: [ParticipantsModule, KeysModule],
    };
  }
}
