import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { Topics, validateEnvelope } from '@dtp/domain';
import { EventBatchContext, itemHandlers, KafkaTransport, runConsumer } from '@dtp/events';
import { DiamondEventsController, SEARCH_CONSUMER } from './diamond-events.controller';
import { ReadModelRepository } from './read-model.repository';

export interface RebuildOptions {
  dataSource: DataSource;
  transport: KafkaTransport;
  logger: Logger;
  topic?: string;
  /** Fresh Kafka consumer group (default `search-rebuild-<time>`): reads the topic from its beginning. */
  group?: string;
  /** Called with (messages handled, messages to handle) as the replay goes. */
  onProgress?: (done: number, total: number) => void;
}

export interface RebuildResult {
  /** Messages replayed (the topic's content when the rebuild started). */
  messages: number;
  /** Current diamonds in the rebuilt read model. */
  count: number;
  parked: number;
}

/**
 * Drops the read model (and search's consumer progress) and replays the diamonds topic from the beginning under
 * a fresh consumer group, until every partition reaches the end it had when the rebuild started. On a compacted
 * topic that is the latest record of every diamond, and tombstones for deleted ones. Events arriving meanwhile
 * are applied too (by the rebuild or by the live consumer: both keep the same progress, so neither applies twice).
 */
export async function rebuildReadModel(opts: RebuildOptions): Promise<RebuildResult> {
  // Another topic (tests) carries the same events: validated as the diamonds topic's (below).
  const topic = (opts.topic ?? Topics.PLATFORM_DIAMONDS) as typeof Topics.PLATFORM_DIAMONDS;
  const ends = (await opts.transport.topicOffsets(topic)).filter((p) => p.high > p.low);
  const total = ends.reduce((s, p) => s + (p.high - p.low), 0);
  await ReadModelRepository.reset(opts.dataSource, SEARCH_CONSUMER);
  opts.logger.info({ topic, messages: total, partitions: ends.length }, 'rebuild: read model dropped, replaying');

  const reached = new Map<number, number>();
  let done = 0;
  let finished!: () => void;
  const allDone = new Promise<void>((resolve) => (finished = resolve));
  const complete = () => ends.every((p) => (reached.get(p.partition) ?? -1) >= p.high - 1);
  if (complete()) finished();
  opts.onProgress?.(0, total);

  // The live handler, run outside the service (this is a one-off tool, not the app): same effects, same progress.
  const handler = new DiamondEventsController(new ReadModelRepository(opts.dataSource));
  const consumer = await runConsumer({
    transport: opts.transport,
    topic,
    validate: (_topic, value) => validateEnvelope(Topics.PLATFORM_DIAMONDS, value),
    group: opts.group ?? `search-rebuild-${Date.now()}`,
    stateName: SEARCH_CONSUMER,
    dataSource: opts.dataSource,
    logger: opts.logger,
    ...itemHandlers<typeof Topics.PLATFORM_DIAMONDS>((items, ctx) => handler.onDiamondEvents(items, new EventBatchContext([ctx]))),
    onSettled: (_outcome, message) => {
      const offset = Number(message.offset);
      const end = ends.find((p) => p.partition === message.partition);
      if (end && offset < end.high) done += 1;
      reached.set(message.partition, Math.max(reached.get(message.partition) ?? -1, offset));
      opts.onProgress?.(Math.min(done, total), total);
      if (complete()) finished();
    },
  });
  try {
    await allDone;
  } finally {
    await consumer.close();
  }
  const repo = new ReadModelRepository(opts.dataSource);
  const parked = consumer.counts.parked;
  return { messages: total, count: await repo.count(), parked };
}
