import { Injectable, Module } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
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
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Runs `work` in one transaction and writes the events it returns to the outbox in that same transaction. */
  run<T>(work: (m: EntityManager) => Promise<WithEvents<T>>): Promise<T> {
    return this.ds.transaction(async (m) => {
      const { result, events } = await work(m);
      await writeOutbox(m, events);
      return result;
    });
  }
}

@Module({ providers: [OutboxTransactions], exports: [OutboxTransactions] })
export class OutboxModule {}
