import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClientEntity } from './client.entity';
import { ClientSecrets } from './client-secrets';
import { ClientsRepository } from './clients.repository';
import { VerifiedSecretCache } from './verified-secret-cache';

/** Client credentials (`clients`): their rows, the hashing of their secrets, the verified-secret cache. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientEntity])],
  providers: [ClientsRepository, ClientSecrets, VerifiedSecretCache],
  exports: [ClientsRepository, ClientSecrets, VerifiedSecretCache],
})
export class CredentialsModule {}
