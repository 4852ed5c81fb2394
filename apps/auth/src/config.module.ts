import { DynamicModule, Global, Module } from '@nestjs/common';
import { AuthConfig } from './config';
import { AUTH_CONFIG } from './tokens';

/**
 * The validated AuthConfig as one provider (AUTH_CONFIG), for every module of the service and of the CLI. The
 * config is loaded and validated before Nest starts (a bad variable stops the start with its name).
 */
@Global()
@Module({})
export class AuthConfigModule {
  static forRoot(config: AuthConfig): DynamicModule {
    return {
      module: AuthConfigModule,
      providers: [{ provide: AUTH_CONFIG, useValue: config }],
      exports: [AUTH_CONFIG],
    };
  }
}
