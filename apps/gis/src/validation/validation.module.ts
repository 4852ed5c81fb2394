import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { VerifyModule } from '../verify/verify.module';
import { ValidationRequestEntity } from './validation-request.entity';
import { ValidationController } from './validation.controller';
import { ValidationRepository } from './validation.repository';
import { ValidationService } from './validation.service';
import { ValidationWorker } from './validation.worker';
import { ValidationWorkerLifecycle } from './validation-worker.lifecycle';

/** Validate, poll and history; the validation requests table and the SKIP LOCKED worker that answers them. */
@Module({
  imports: [TypeOrmModule.forFeature([ValidationRequestEntity]), DiamondsModule, VerifyModule],
  controllers: [ValidationController],
  providers: [ValidationRepository, ValidationService, ValidationWorker, ValidationWorkerLifecycle],
  exports: [ValidationRepository, ValidationWorker],
})
export class ValidationModule {}
