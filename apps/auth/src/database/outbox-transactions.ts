import { Injectable, Module } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import { OutboxEvent, writeOutbox } from '@dtp/events';

/** What a change inside an outbox transaction returns: its result and the events it publishes. */
export interface WithEvents<T> {
  result: T;
  events: OutboxEvent[];
}

/**
 * The transactional outbox of the auth database (docs/events.md): a change and the events it publishes commit
 * together or not at all. The relay publishes the rows after the commit.
 */
@Injectable()
export class OutboxTransactions {
  constructor(private readonly uow: UnitOfWork) {}

  /** Runs `work` in one transaction and writes the events it returns to the outbox in that same transaction. */
  run<T>(work: (m: EntityManager) => Promise<WithEvents<T>>): Promise<T> {
    return this.uow.run(async (tx) => {
      const { result, events } = await work(tx.manager);
      await writeOutbox(tx, events);
      return result;
    });
  }
}

@Module({ providers: [OutboxTransactions], exports: [OutboxTransactions] })
export class OutboxModule {}
