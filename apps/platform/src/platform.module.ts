import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import { PlatformConfig } from './config';

export const PLATFORM_CONFIG = Symbol('PLATFORM_CONFIG');

@Module({})
export class PlatformModule {
  static forRoot(config: PlatformConfig, ds: DataSource): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      imports: [AuthGuardModule.forRoot({ issuer: config.AUTH_ISSUER, audience: config.PLATFORM_AUDIENCE, jwksUrl: config.jwksUrl })],
      providers: [
        { provide: PLATFORM_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
      ],
      exports: [PLATFORM_CONFIG, DataSource],
    };
  }
}
