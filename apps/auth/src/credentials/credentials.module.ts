import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClientEntity } from './client.entity';
import { ClientSecrets } from './client-secrets';
import { ClientsRepository } from './clients.repository';

/** Client credentials (`clients`): their rows and the hashing of their secrets. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientEntity])],
  providers: [ClientsRepository, ClientSecrets],
  exports: [ClientsRepository, ClientSecrets],
})
export class CredentialsModule {}
