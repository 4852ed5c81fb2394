import { IncomingMessage, jsonMessage } from './transport';
import { InProcessTransport } from './in-process.transport';

const until = async (cond: () => boolean) => {
  const end = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timeout');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('InProcessTransport', () => {
  it('delivers every message of a topic in publish order to each group, once per group', async () => {
    const t = new InProcessTransport();
    const a: IncomingMessage[] = [];
    const b: IncomingMessage[] = [];
    await t.subscribe({ topic: 'x', group: 'a', handler: async (m) => void a.push(m) });
    await t.subscribe({ topic: 'x', group: 'b', handler: async (m) => void b.push(m) });
    for (let i = 0; i < 100; i += 1) await t.publish([{ topic: 'x', key: `k${i % 7}`, value: { i } }]);
    await t.publish([{ topic: 'y', key: 'k', value: { other: true } }]);
    await until(() => a.length === 100 && b.length === 100);
    expect(a.map((m) => (m.value as { i: number }).i)).toEqual([...Array(100).keys()]);
    expect(b.map((m) => m.offset)).toEqual([...Array(100).keys()].map(String));
    await t.close();
  });

  it('a jsonMessage is kept as text until a consumer takes it, then delivered decoded; null text is a tombstone', async () => {
    const t = new InProcessTransport();
    const parse = jest.spyOn(JSON, 'parse');
    try {
      await t.publish([jsonMessage('x', 'k', '{"b":2,"a":1}'), jsonMessage('x', 'k', null)]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    const got: unknown[] = [];
    await t.subscribe({ topic: 'x', group: 'g', handler: async (m) => void got.push(m.value) });
    await until(() => got.length === 2);
    expect(got).toEqual([{ b: 2, a: 1 }, null]);
    expect(Object.keys(got[0] as object)).toEqual(['b', 'a']);
    await t.close();
  });

  it('a late group starts from the beginning (or the end when asked); tombstones are delivered as null', async () => {
    const t = new InProcessTransport();
    await t.publish([
      { topic: 'x', key: 'k', value: 1 },
      { topic: 'x', key: 'k', value: null },
    ]);
    const early: unknown[] = [];
    const late: unknown[] = [];
    await t.subscribe({ topic: 'x', group: 'from-start', handler: async (m) => void early.push(m.value) });
    await t.subscribe({ topic: 'x', group: 'from-end', fromBeginning: false, handler: async (m) => void late.push(m.value) });
    await t.publish([{ topic: 'x', key: 'k', value: 2 }]);
    await until(() => early.length === 3 && late.length === 1);
    expect(early).toEqual([1, null, 2]);
    expect(late).toEqual([2]);
    await t.close();
  });

  it('retries a failing handler with backoff and never lets a later message overtake it', async () => {
    const errors: unknown[] = [];
    const t = new InProcessTransport((err) => errors.push(err));
    const seen: number[] = [];
    let failures = 0;
    await t.subscribe({
      topic: 'x',
      group: 'g',
      handler: async (m) => {
        const i = (m.value as { i: number }).i;
        if (i === 1 && failures < 3) {
          failures += 1;
          throw new Error('not yet');
        }
        seen.push(i);
      },
    });
    await t.publish([0, 1, 2, 3].map((i) => ({ topic: 'x', key: 'k', value: { i } })));
    await until(() => seen.length === 4);
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(errors).toHaveLength(3);
    await t.close();
    await expect(t.publish([{ topic: 'x', key: 'k', value: 1 }])).rejects.toThrow(/closed/);
  });

  it("closing a subscription, or the transport, waits for the message in hand (as a Kafka consumer's disconnect does)", async () => {
    for (const closing of ['subscription', 'transport'] as const) {
      const t = new InProcessTransport();
      const events: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const sub = await t.subscribe({
        topic: 'x',
        group: 'g',
        handler: async (m) => {
          events.push(`start ${String(m.value)}`);
          await held;
          events.push(`end ${String(m.value)}`);
        },
      });
      await t.publish([{ topic: 'x', key: 'k', value: 1 }]);
      await until(() => events.length === 1);
      const closed = (closing === 'subscription' ? sub.close() : t.close()).then(() => events.push('closed'));
      await new Promise((r) => setTimeout(r, 30));
      expect(events).toEqual(['start 1']);
      release();
      await closed;
      expect([closing, events]).toEqual([closing, ['start 1', 'end 1', 'closed']]);
      await t.close();
    }
  });

  it('stops delivering to a closed subscription', async () => {
    const t = new InProcessTransport();
    const seen: unknown[] = [];
    const sub = await t.subscribe({ topic: 'x', group: 'g', handler: async (m) => void seen.push(m.value) });
    await t.publish([{ topic: 'x', key: 'k', value: 1 }]);
    await until(() => seen.length === 1);
    await sub.close();
    await t.publish([{ topic: 'x', key: 'k', value: 2 }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([1]);
    await t.close();
  });
});
