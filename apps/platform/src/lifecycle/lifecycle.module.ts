import { Module } from '@nestjs/common';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { LifecycleController } from './lifecycle.controller';
import { LifecycleService } from './lifecycle.service';

/** Polish, split, destroy (docs/lifecycle.md). */
@Module({ imports: [DiamondsModule], controllers: [LifecycleController], providers: [LifecycleService] })
export class LifecycleModule {}
