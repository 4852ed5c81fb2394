import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { UnlockController } from './unlock.controller';
import { UnlockService } from './unlock.service';

@Module({ imports: [DiamondsModule], controllers: [UnlockController], providers: [UnlockService] })
export class UnlockModule {}
