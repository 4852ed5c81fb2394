import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { ParticipantStorageEntity } from './participant-storage.entity';
import { StorageQuotaRepository } from './storage-quota.repository';

@Module({
  imports: [TypeOrmModule.forFeature([ParticipantStorageEntity]), DiamondsModule],
  controllers: [FilesController],
  providers: [FilesService, StorageQuotaRepository],
})
export class FilesModule {}
