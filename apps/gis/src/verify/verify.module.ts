import { Module } from '@nestjs/common';
import { entityRepositories } from '../common/entity-repositories';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { VerifyAttemptEntity } from './verify-attempt.entity';
import { VerifyController } from './verify.controller';
import { VerifyRepository } from './verify.repository';
import { VerifyService } from './verify.service';

/** Verify, and the record of every verify attempt (validate needs a successful one). */
@Module({
  imports: [DiamondsModule],
  controllers: [VerifyController],
  providers: [...entityRepositories([VerifyAttemptEntity]), VerifyRepository, VerifyService],
  exports: [VerifyRepository],
})
export class VerifyModule {}
