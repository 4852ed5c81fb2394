import { Module } from '@nestjs/common';
import { entityRepositories } from '../common/entity-repositories';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { VerifyModule } from '../verify/verify.module';
import { ValidationRequestEntity } from './validation-request.entity';
import { ValidationController } from './validation.controller';
import { ValidationRepository } from './validation.repository';
import { ValidationService } from './validation.service';
import { ValidationWorker } from './validation.worker';

/** Validate, poll and history; the validation requests table and the SKIP LOCKED worker that answers them. */
@Module({
  imports: [DiamondsModule, VerifyModule],
  controllers: [ValidationController],
  providers: [...entityRepositories([ValidationRequestEntity]), ValidationRepository, ValidationService, ValidationWorker],
  exports: [ValidationRepository, ValidationWorker],
})
export class ValidationModule {}
