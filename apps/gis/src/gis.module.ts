import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import { GisConfig } from './config';

export const GIS_CONFIG = Symbol('GIS_CONFIG');

@Module({})
export class GisModule {
  static forRoot(config: GisConfig, ds: DataSource): DynamicModule {
    return {
      module: GisModule,
      global: true,
      imports: [AuthGuardModule.forRoot({ issuer: config.AUTH_ISSUER, audience: config.GIS_AUDIENCE, jwksUrl: config.jwksUrl })],
      providers: [
        { provide: GIS_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
      ],
      exports: [GIS_CONFIG, DataSource],
    };
  }
}
