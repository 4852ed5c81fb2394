import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import type { BlobStore } from '@dtp/blob-store';
import { BLOB_STORE, GIS_CONFIG } from './common/tokens';
import { GisConfig } from './config';
import { DiamondsModule } from './diamonds/diamonds.module';
import { GradingModule } from './grading/grading.module';
import { ValidationModule } from './validation/validation.module';
import { VerifyModule } from './verify/verify.module';

export { GIS_CONFIG } from './common/tokens';

@Module({})
export class GisModule {
  static forRoot(config: GisConfig, ds: DataSource, blobStore: BlobStore): DynamicModule {
    return {
      module: GisModule,
      global: true,
      imports: [
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.GIS_AUDIENCE)),
        DiamondsModule,
        VerifyModule,
        ValidationModule,
        GradingModule,
      ],
      providers: [
        { provide: GIS_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
        { provide: BLOB_STORE, useValue: blobStore },
      ],
      exports: [GIS_CONFIG, DataSource, BLOB_STORE],
    };
  }
}
