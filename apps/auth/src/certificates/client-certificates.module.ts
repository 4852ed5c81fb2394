import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ParticipantsModule } from '../participants/participants.module';
import { ClientCertificateEntity } from './client-certificate.entity';
import { ClientCertificatesRepository } from './client-certificates.repository';
import { ClientCertificatesService } from './client-certificates.service';

/** Legacy participants' client certificates (mutual TLS): registration, removal, lookup, their events. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientCertificateEntity]), ParticipantsModule],
  providers: [ClientCertificatesRepository, ClientCertificatesService],
  exports: [ClientCertificatesService],
})
export class ClientCertificatesModule {}
