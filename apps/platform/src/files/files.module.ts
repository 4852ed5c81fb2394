import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { StorageQuotaRepository } from './storage-quota.repository';

@Module({ imports: [DiamondsModule], controllers: [FilesController], providers: [FilesService, StorageQuotaRepository] })
export class FilesModule {}
