import type { IncomingMessage } from '../transport';
import { itemHandlers } from './items';
import type { BatchContext, ConsumeContext, EventItem } from './types';

describe('itemHandlers', () => {
  const message: IncomingMessage = { topic: 't', partition: 0, offset: '5', key: 'k1', value: null };
  const ctx = { tx: {}, manager: {} } as unknown as BatchContext;
  const envelope = {
    event_id: 'e',
    event_type: 'diamond.deleted',
    schema_version: 1,
    occurred_at: '2024-01-01T00:00:00Z',
    key: 'k1',
    revision: 3,
    data: { diamond_id: 'k1' },
  } as const;

  it('gives events and tombstones to one function as items', async () => {
    const calls: { items: EventItem[]; ctx: BatchContext }[] = [];
    const h = itemHandlers(async (items, c) => void calls.push({ items, ctx: c }));
    await h.handleMany([{ envelope, message, heldRevision: 2 }], ctx);
    const tombstoneCtx = { ...ctx, message, heldRevision: 3 } as ConsumeContext;
    await h.onTombstone!('k1', tombstoneCtx);
    expect(calls).toEqual([
      { items: [{ event: envelope, key: 'k1', heldRevision: 2, message }], ctx },
      { items: [{ event: null, key: 'k1', heldRevision: 3, message }], ctx: tombstoneCtx },
    ]);
  });

  it('leaves tombstones out when asked (runConsumer then skips them)', () => {
    expect(itemHandlers(async () => undefined, { tombstones: false }).onTombstone).toBeUndefined();
  });
});
