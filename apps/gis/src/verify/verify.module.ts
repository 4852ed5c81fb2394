import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DiamondsModule } from '../diamonds/diamonds.module';
import { VerifyAttemptEntity } from './verify-attempt.entity';
import { VerifyController } from './verify.controller';
import { VerifyRepository } from './verify.repository';
import { VerifyService } from './verify.service';

/** Verify, and the record of every verify attempt (validate needs a successful one). */
@Module({
  imports: [TypeOrmModule.forFeature([VerifyAttemptEntity]), DiamondsModule],
  controllers: [VerifyController],
  providers: [VerifyRepository, VerifyService],
  exports: [VerifyRepository],
})
export class VerifyModule {}
