import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, MoreThanOrEqual, Repository } from 'typeorm';
import { ParticipantEntity } from '../participants/participant.entity';
import { ClientEntity } from './client.entity';

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

/** All SQL on `clients` (the participants' client credentials). Methods that take `m` run in that transaction. */
@Injectable()
export class ClientsRepository {
  constructor(@InjectRepository(ClientEntity) private readonly clients: Repository<ClientEntity>) {}

  async insert(c: Pick<ClientEntity, 'client_id' | 'participant_id' | 'secret_hash'>, m?: EntityManager): Promise<void> {
    await (m ? m.withRepository(this.clients) : this.clients).insert({ ...c, revoked_at: null });
  }

  ofParticipant(participantId: string): Promise<ClientEntity[]> {
    return this.clients.find({ where: { participant_id: participantId }, order: { created_at: 'ASC' } });
  }

  /** The client and its participant, whether revoked or not (one round trip). */
  async findWithParticipant(clientId: string): Promise<ClientWithParticipant | null> {
    const client = await this.clients
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
  async revoke(m: EntityManager, clientId: string): Promise<RevokedClient | null> {
    // One statement: lock the row, set revoked_at only if unset, and return the time that stands and whether
    // this call set it (the query builder cannot say "the old row's value, unless updated").
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
    const rows = await this.clients.find({
      select: { client_id: true, participant_id: true, revoked_at: true },
      where: { revoked_at: MoreThanOrEqual(since) },
      order: { revoked_at: 'ASC', client_id: 'ASC' },
    });
    return rows.map((r) => ({ clientId: r.client_id, participantId: r.participant_id, revokedAt: r.revoked_at!, newly: false }));
  }
}
