import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { ConsumerGroups, DiamondV1, Topics, validateEnvelope } from '@dtp/domain';
import { ConsumeOutcome, EventTransport, IncomingMessage, ParkEventError, runConsumer, RunningConsumer } from '@dtp/events';
import { ReadModelRepository } from './read-model.repository';

export interface DiamondsConsumerOptions {
  transport: EventTransport;
  dataSource: DataSource;
  logger: Logger;
  registry?: Registry;
  /** Kafka consumer group (default `search`); a rebuild uses a fresh one. */
  group?: string;
  /** Default platform.diamonds.v1; another name (tests) still carries that topic's contract. */
  topic?: string;
  onSettled?: (outcome: ConsumeOutcome, message: IncomingMessage) => void;
}

/** The state name of search's progress in consumer_state (the same for the live consumer and a rebuild). */
export const SEARCH_CONSUMER = ConsumerGroups.SEARCH;

/**
 * Keeps the read model in step with platform.diamonds.v1: `diamond.upserted` stores the whole record and its
 * file index, `diamond.deleted` and tombstones leave a deletion marker. Idempotent twice over: the consumer
 * framework skips revisions it holds, and every write is conditional on a newer revision.
 */
export async function startDiamondsConsumer(opts: DiamondsConsumerOptions): Promise<RunningConsumer> {
  const repo = new ReadModelRepository(opts.dataSource);
  return runConsumer({
    transport: opts.transport,
    topic: opts.topic ?? Topics.PLATFORM_DIAMONDS,
    validate: (_topic, value) => validateEnvelope(Topics.PLATFORM_DIAMONDS, value),
    group: opts.group ?? ConsumerGroups.SEARCH,
    stateName: SEARCH_CONSUMER,
    dataSource: opts.dataSource,
    logger: opts.logger,
    registry: opts.registry,
    onSettled: opts.onSettled,
    handle: async (event, { manager }) => {
      switch (event.event_type) {
        case 'diamond.upserted':
          await repo.upsert(event.data as DiamondV1, event.revision, manager);
          return;
        case 'diamond.deleted':
          await repo.markDeleted(event.data.diamond_id, event.revision, manager);
          return;
        case 'participant.onboarded':
        case 'shipment.changed':
        case 'grading.submitted':
        case 'eligibility.changed':
        case 'client.revoked':
          throw new ParkEventError(`search does not handle ${event.event_type}`);
      }
    },
    onTombstone: async (key, { manager }) => {
      await repo.applyTombstone(key, manager);
    },
  });
}
