import { DynamicModule, Global, Module } from '@nestjs/common';
import { ServiceConfigModule } from '@dtp/service-kit';
import { AuthConfig } from './config';
import { AUTH_CONFIG } from './tokens';

/**
 * The validated AuthConfig, through `@nestjs/config` (the kit's ServiceConfigModule: the `auth` namespace of the
 * ConfigService and the AuthConfig class as a provider), also as AUTH_CONFIG, for every module of the service and
 * of the CLI. The config is loaded and validated before Nest starts (a bad variable stops the start with its name).
 */
@Global()
@Module({})
export class AuthConfigModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AuthConfigModule,
      imports: [ServiceConfigModule.forRoot('auth', AuthConfig, config)],
      providers: [{ provide: AUTH_CONFIG, useExisting: AuthConfig }],
      exports: [AUTH_CONFIG],
    };
  }
}
