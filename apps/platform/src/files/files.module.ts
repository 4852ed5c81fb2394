import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';

@Module({ imports: [DiamondsModule], controllers: [FilesController], providers: [FilesService] })
export class FilesModule {}
