import { DataSource, EntityManager } from 'typeorm';
import { ClientEntity } from '../credentials/client.entity';
import { ParticipantEntity } from './participant.entity';

export interface ClientWithParticipant {
  client: ClientEntity;
  participant: ParticipantEntity;
}

/** All SQL on participants and their client credentials. */
export class ParticipantsRepository {
  constructor(private readonly ds: DataSource) {}

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  async insertParticipant(m: EntityManager, p: Omit<ParticipantEntity, 'createdAt'>): Promise<ParticipantEntity> {
    const repo = m.getRepository(ParticipantEntity);
    await repo.insert(p);
    return repo.findOneByOrFail({ id: p.id });
  }

  async insertClient(m: EntityManager, c: Pick<ClientEntity, 'clientId' | 'participantId' | 'secretHash'>): Promise<void> {
    await m.getRepository(ClientEntity).insert({ ...c, revokedAt: null });
  }

  findParticipant(id: string, m: EntityManager = this.ds.manager): Promise<ParticipantEntity | null> {
    return m.getRepository(ParticipantEntity).findOneBy({ id });
  }

  clientsOf(participantId: string): Promise<ClientEntity[]> {
    return this.ds.getRepository(ClientEntity).find({ where: { participantId }, order: { createdAt: 'ASC' } });
  }

  /** The client and its participant, whether revoked or not (one round trip). */
  async findClient(clientId: string): Promise<ClientWithParticipant | null> {
    const client = await this.ds
      .getRepository(ClientEntity)
      .createQueryBuilder('c')
      .innerJoinAndMapOne('c.participant', ParticipantEntity, 'p', 'p.id = c.participant_id')
      .where('c.client_id = :clientId', { clientId })
      .getOne();
    if (!client) return null;
    const { participant, ...rest } = client as ClientEntity & { participant: ParticipantEntity };
    return { client: rest as ClientEntity, participant };
  }

  /** Sets revoked_at once (a second revocation keeps the first time). False when the client does not exist. */
  async revokeClient(clientId: string): Promise<boolean> {
    const [rows] = (await this.ds.query(
      `UPDATE clients SET revoked_at = COALESCE(revoked_at, now()) WHERE client_id = $1 RETURNING client_id`,
      [clientId],
    )) as [{ client_id: string }[], number];
    return rows.length === 1;
  }
}
