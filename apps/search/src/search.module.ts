import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import { SearchConfig } from './config';

export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');

@Module({})
export class SearchModule {
  static forRoot(config: SearchConfig, ds: DataSource): DynamicModule {
    return {
      module: SearchModule,
      global: true,
      imports: [AuthGuardModule.forRoot({ issuer: config.AUTH_ISSUER, audience: config.SEARCH_AUDIENCE, jwksUrl: config.jwksUrl })],
      providers: [
        { provide: SEARCH_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
      ],
      exports: [SEARCH_CONFIG, DataSource],
    };
  }
}
