import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { ParticipantEntity } from '../participants/participant.entity';
import { ClientCertificateEntity } from './client-certificate.entity';

/** All SQL on `client_certificates`. Methods that take `m` run in that transaction. */
@Injectable()
export class ClientCertificatesRepository {
  constructor(@InjectRepository(ClientCertificateEntity) private readonly certificates: Repository<ClientCertificateEntity>) {}

  async insert(m: EntityManager, c: Omit<ClientCertificateEntity, 'created_at' | 'removed_at'>): Promise<ClientCertificateEntity> {
    const repo = m.withRepository(this.certificates);
    await repo.insert({ ...c, removed_at: null });
    return repo.findOneByOrFail({ certificate_id: c.certificate_id });
  }

  /** The registered (not removed) certificate with this thumbprint, whoever it belongs to. */
  registered(x5tS256: string, m?: EntityManager): Promise<ClientCertificateEntity | null> {
    return (m ? m.withRepository(this.certificates) : this.certificates).findOneBy({ x5t_s256: x5tS256, removed_at: IsNull() });
  }

  /** A participant's registered certificates, oldest first. */
  ofParticipant(participantId: string): Promise<ClientCertificateEntity[]> {
    return this.certificates.find({ where: { participant_id: participantId, removed_at: IsNull() }, order: { created_at: 'ASC', certificate_id: 'ASC' } });
  }

  /** Every registered certificate with its participant (for the in-process bus's re-announcement). */
  async allRegistered(): Promise<Array<{ certificate: ClientCertificateEntity; participant: ParticipantEntity }>> {
    const rows = await this.certificates
      .createQueryBuilder('c')
      .innerJoinAndMapOne('c.participant', ParticipantEntity, 'p', 'p.id = c.participant_id')
      .where('c.removed_at IS NULL')
      .orderBy('c.created_at', 'ASC')
      .getMany();
    return rows.map((row) => {
      const { participant, ...certificate } = row as ClientCertificateEntity & { participant: ParticipantEntity };
      return { certificate: certificate as ClientCertificateEntity, participant };
    });
  }

  /**
   * Marks a participant's certificate removed in `m`'s transaction (the row locked); the row as it stands, or null
   * when the participant has no such certificate. `newly` says whether this call removed it.
   */
  async remove(m: EntityManager, participantId: string, certificateId: string): Promise<{ row: ClientCertificateEntity; newly: boolean } | null> {
    const repo = m.withRepository(this.certificates);
    const row = await repo.findOne({ where: { certificate_id: certificateId, participant_id: participantId }, lock: { mode: 'pessimistic_write' } });
    if (!row) return null;
    if (row.removed_at !== null) return { row, newly: false };
    await repo.update({ certificate_id: certificateId }, { removed_at: () => 'now()' });
    return { row: await repo.findOneByOrFail({ certificate_id: certificateId }), newly: true };
  }
}
