import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthGuardModule } from '@dtp/auth-guard';
import { blobStoreFromConfig } from '@dtp/blob-store';
import { PlatformConfig } from './config';
import { PlatformDb } from './db/platform-db';
import { DeletionModule } from './deletion/deletion.module';
import { FilesModule } from './files/files.module';
import { GisEventsModule } from './gis-events/gis-events.module';
import { GradedMeasurementsModule } from './graded-measurements/graded-measurements.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { ParticipantsModule } from './participants/participants.module';
import { RegistrationModule } from './registration/registration.module';
import { ShipmentsModule } from './shipments/shipments.module';
import { BLOB_STORE, PLATFORM_CONFIG } from './tokens';
import { UnlockModule } from './unlock/unlock.module';

export { PLATFORM_CONFIG, BLOB_STORE };

@Module({})
export class PlatformModule {
  static forRoot(config: PlatformConfig, ds: DataSource): DynamicModule {
    return {
      module: PlatformModule,
      global: true,
      imports: [
        AuthGuardModule.forRoot(config.tokenVerifierOptions(config.PLATFORM_AUDIENCE)),
        ParticipantsModule,
        RegistrationModule,
        FilesModule,
        DeletionModule,
        UnlockModule,
        GradedMeasurementsModule,
        GisEventsModule,
        ShipmentsModule,
        LifecycleModule,
      ],
      providers: [
        { provide: PLATFORM_CONFIG, useValue: config },
        { provide: DataSource, useValue: ds },
        { provide: PlatformDb, useValue: new PlatformDb(ds) },
        // BLOB_STORE=fs (default, BLOB_STORE_DIR) or s3 (S3_BUCKET, S3_ENDPOINT, ...): see @dtp/blob-store from-config.
        { provide: BLOB_STORE, useValue: blobStoreFromConfig(config) },
      ],
      exports: [PLATFORM_CONFIG, DataSource, PlatformDb, BLOB_STORE],
    };
  }
}
