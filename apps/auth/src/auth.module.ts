import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthConfig } from './config';

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

@Module({})
export class AuthModule {
  static forRoot(config: AuthConfig, ds: DataSource): DynamicModule {
    return {
      module: AuthModule,
      global: true,
      providers: [
        { provide: AUTH_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
      ],
      exports: [AUTH_CONFIG, DataSource],
    };
  }
}
