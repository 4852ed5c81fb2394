import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import type { BaseServiceConfig } from './service';

/**
 * A service's validated config, through `@nestjs/config`: the config class was read from the environment and
 * validated with class-validator at start-up (loadConfig, configOrExit), and is registered here as the
 * namespace `<service>` of the global ConfigService and as a provider of its own class, so features inject
 * `PlatformConfig` (or `ConfigService.get('platform')`) and never read `process.env`.
 *
 * Neither an env file nor `process.env` is read or written by this module: `npm start` runs four services in
 * one process, each with its own environment.
 */
@Module({})
export class ServiceConfigModule {
  static forRoot<C extends BaseServiceConfig>(service: string, configClass: new () => C, config: C): Promise<DynamicModule> {
    const namespace = registerAs(service, () => config);
    return ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      validatePredefined: false,
      skipProcessEnv: true,
      load: [namespace],
    }).then((configModule) => ({
      module: ServiceConfigModule,
      global: true,
      imports: [configModule],
      providers: [{ provide: configClass, inject: [namespace.KEY], useFactory: (c: C) => c }],
      exports: [configClass, configModule],
    }));
  }
}
