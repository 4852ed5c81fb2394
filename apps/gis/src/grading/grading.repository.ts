import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { GradingEntity } from './grading.entity';

/** gradings: the labs' accepted submissions. The only code that queries the table. */
@Injectable()
export class GradingRepository {
  /** Stores a submission inside the caller's transaction (the one that writes its grading.submitted event). */
  async insert(manager: EntityManager, grading: GradingEntity): Promise<void> {
    await manager.getRepository(GradingEntity).insert(grading);
  }
}
