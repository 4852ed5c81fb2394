import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustodyCheckpointer } from './custody-checkpointer';
import { CustodyKeys } from './custody-keys';
import { CustodyKeysController } from './custody-keys.controller';
import { CustodyCheckpointEntity, CustodyEntryEntity, CustodySigningKeyEntity } from './custody.entity';
import { CustodyRepository } from './custody.repository';

/**
 * The custody log's background side and public keys (docs/platform.md "Custody log"). The entries themselves are
 * written by DiamondChanges and the other change sites, in the transaction of each change.
 */
@Module({
  imports: [TypeOrmModule.forFeature([CustodyEntryEntity, CustodyCheckpointEntity, CustodySigningKeyEntity])],
  controllers: [CustodyKeysController],
  providers: [CustodyRepository, CustodyKeys, CustodyCheckpointer],
  exports: [CustodyCheckpointer, CustodyKeys],
})
export class CustodyModule {}
