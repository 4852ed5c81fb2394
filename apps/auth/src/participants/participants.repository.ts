import { DataSource, EntityManager } from 'typeorm';
import { ClientEntity } from '../credentials/client.entity';
import { ParticipantEntity } from './participant.entity';

export interface RevokedClient {
  clientId: string;
  participantId: string;
  revokedAt: Date;
  /** Revoked by this call (false: it already was). */
  newly: boolean;
}

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

  /**
   * Revokes in `m`'s transaction (the row locked): sets revoked_at once, a second revocation keeps the first time.
   * The client, its participant and that time; null when the client does not exist.
   */
  async revokeClient(m: EntityManager, clientId: string): Promise<RevokedClient | null> {
    const rows = (await m.query(
      `WITH old AS (
         SELECT client_id, participant_id, revoked_at FROM clients WHERE client_id = $1 FOR UPDATE
       ), revoked AS (
         UPDATE clients c SET revoked_at = now() FROM old
         WHERE c.client_id = old.client_id AND old.revoked_at IS NULL
         RETURNING c.revoked_at
       )
       SELECT old.client_id, old.participant_id, COALESCE((SELECT revoked_at FROM revoked), old.revoked_at) AS revoked_at,
              EXISTS (SELECT 1 FROM revoked) AS newly
       FROM old`,
      [clientId],
    )) as { client_id: string; participant_id: string; revoked_at: Date; newly: boolean }[];
    if (rows.length === 0) return null;
    const [r] = rows;
    return { clientId: r.client_id, participantId: r.participant_id, revokedAt: r.revoked_at, newly: r.newly };
  }

  /** Clients revoked since `since` (their tokens may still be unexpired), oldest first. */
  async revokedSince(since: Date): Promise<RevokedClient[]> {
    const rows = (await this.ds.query(
      `SELECT client_id, participant_id, revoked_at FROM clients WHERE revoked_at >= $1 ORDER BY revoked_at, client_id`,
      [since],
    )) as { client_id: string; participant_id: string; revoked_at: Date }[];
    return rows.map((r) => ({ clientId: r.client_id, participantId: r.participant_id, revokedAt: r.revoked_at, newly: false }));
  }
}
