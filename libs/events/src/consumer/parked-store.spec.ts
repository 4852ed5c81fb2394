import pino from 'pino';
import type { DataSource } from 'typeorm';
import { UnitOfWork } from '@dtp/database';
import type { IncomingMessage } from '../transport';
import { eventsDatabase } from '../../test/helpers';
import { ParkedStore, parkedRows, RAW_KEEP_CHARS } from './parked-store';

const message = (value: unknown, extra: Partial<IncomingMessage> = {}): IncomingMessage => ({
  topic: 't',
  partition: 1,
  offset: '42',
  key: 'k',
  value,
  ...extra,
});

describe('parkedRows', () => {
  it('keeps the payload as JSON first, then an excerpt, then nothing but the reason', () => {
    expect(parkedRows(message({ a: 1 }), { reason: 'invalid', text: 'x' })).toEqual([
      { payload: '{"a":1}', raw: null },
      { payload: null, raw: '{"a":1}' },
      { payload: null, raw: null },
    ]);
    expect(parkedRows(message('not json'), { reason: 'invalid', text: 'x' })[0]).toEqual({ payload: null, raw: 'not json' });
  });

  it('keeps only the start of a too large or too deep value', () => {
    const big = Buffer.from('y'.repeat(RAW_KEEP_CHARS + 10));
    const rows = parkedRows(message(undefined, { raw: big }), { reason: 'too_large', text: 'x' });
    expect(rows).toHaveLength(2);
    expect(rows[0].payload).toBeNull();
    expect(rows[0].raw).toHaveLength(RAW_KEEP_CHARS);
  });
});

describe('ParkedStore (real PostgreSQL)', () => {
  let ds: DataSource;
  const log = pino({ level: 'silent' });
  beforeAll(async () => {
    ({ ds } = await eventsDatabase('parked'));
  });
  afterAll(async () => {
    await ds?.destroy();
  });
  const rows = async (consumer: string) =>
    (await ds.query('SELECT topic, key, partition, "offset", payload, raw, reason FROM parked_events WHERE consumer = $1 ORDER BY id', [consumer])) as Record<
      string,
      unknown
    >[];

  it('stores a parked message with its payload and reason', async () => {
    await new ParkedStore('s1', ds, log).park(message({ a: 1 }), { reason: 'refused', text: 'no such diamond' }, () => false);
    expect(await rows('s1')).toEqual([{ topic: 't', key: 'k', partition: 1, offset: '42', payload: { a: 1 }, raw: null, reason: 'no such diamond' }]);
  });

  it('stores less of it when jsonb refuses the payload (a NUL), rather than nothing', async () => {
    await new ParkedStore('s2', ds, log).park(message({ a: 'nul\u0000here' }), { reason: 'invalid', text: 'invalid event: x' }, () => false);
    const [row] = await rows('s2');
    expect(row.payload).toBeNull();
    expect(typeof row.raw).toBe('string');
    expect(row.raw).toContain('nul');
    expect(row.reason).toBe('invalid event: x');
  });

  it('inserts in a given transaction, which rolls back with it', async () => {
    const store = new ParkedStore('s3', ds, log);
    await expect(
      new UnitOfWork(ds).run(async (tx) => {
        await store.insert(tx, message({ a: 1 }), { reason: 'invalid', text: 'x' }, { payload: '{"a":1}', raw: null });
        throw new Error('batch failed');
      }),
    ).rejects.toThrow('batch failed');
    expect(await rows('s3')).toEqual([]);
  });
});
