import type { BatchContext, EventItem, RunConsumerOptions } from './types';

/**
 * runConsumer's handler options made of one function that takes items, events and tombstones alike (a run of
 * claimed events in one call; a tombstone alone, as an item whose `event` is null). What the EventsServer's `many`
 * routes and search's rebuild give runConsumer. Without `tombstones`, tombstones are skipped.
 */
export function itemHandlers<T extends string>(
  apply: (items: EventItem<T>[], ctx: BatchContext) => Promise<void>,
  { tombstones = true }: { tombstones?: boolean } = {},
): Required<Pick<RunConsumerOptions<T>, 'handleMany'>> & Pick<RunConsumerOptions<T>, 'onTombstone'> {
  return {
    handleMany: (events, ctx) =>
      apply(
        events.map((e) => ({ event: e.envelope, key: e.envelope.key, heldRevision: e.heldRevision, message: e.message })),
        ctx,
      ),
    onTombstone: tombstones ? (key, ctx) => apply([{ event: null, key, heldRevision: ctx.heldRevision, message: ctx.message }], ctx) : undefined,
  };
}
