import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ParticipantEntity } from './participant.entity';

/** All SQL on `participants`. Methods that take `m` run in that transaction. */
@Injectable()
export class ParticipantsRepository {
  constructor(@InjectRepository(ParticipantEntity) private readonly participants: Repository<ParticipantEntity>) {}

  /** Inserts and reads the row back (created_at is the database's). */
  async insert(
    m: EntityManager,
    p: Omit<ParticipantEntity, 'created_at' | 'integration_started_at'> & { integration_started_at?: Date },
  ): Promise<ParticipantEntity> {
    const repo = m.withRepository(this.participants);
    await repo.insert(p);
    return repo.findOneByOrFail({ id: p.id });
  }

  find(id: string): Promise<ParticipantEntity | null> {
    return this.participants.findOneBy({ id });
  }
}
