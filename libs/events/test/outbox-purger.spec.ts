import { Client, QueryResultRow } from 'pg';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { Topics } from '@dtp/domain';
import { OUTBOX_PURGE_FIRST_DELAY_MS, OUTBOX_PURGE_INTERVAL_MS, OutboxPurger, writeOutbox } from '../src';
import { eventsDatabase, logger, newId, onboarded } from './helpers';

const topic = Topics.AUTH_PARTICIPANTS;
const HOUR = 3_600_000;
/** Every time in these tests is relative to this instant, passed to purge() (no clock involved). */
const NOW = new Date('2026-06-01T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * HOUR);

describe('OutboxPurger (real PostgreSQL)', () => {
  let ds: DataSource;
  let url: string;

  beforeEach(async () => {
    ({ ds, url } = await eventsDatabase('purge'));
  });
  afterEach(async () => {
    await ds.destroy();
  });

  const sql = { rows: <T extends QueryResultRow>(text: string, params?: unknown[]) => ds.query(text, params) as Promise<T[]> };

  /** Writes one row per entry, in order (ids ascending), published at that time, or unpublished for null. */
  const rows = async (publishedAt: (Date | null)[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const at of publishedAt) {
      const key = newId();
      await writeOutbox(ds.manager, [{ topic, key, eventType: 'participant.onboarded', revision: 1, payload: onboarded(key, 1) }]);
      await ds.query(`UPDATE outbox SET published_at = $2 WHERE key = $1`, [key, at]);
      const [{ id }] = (await ds.query(`SELECT id::text AS id FROM outbox WHERE key = $1`, [key])) as { id: string }[];
      ids.push(id);
    }
    return ids;
  };
  const remaining = async () => ((await ds.query('SELECT id::text AS id FROM outbox ORDER BY id')) as { id: string }[]).map((r) => r.id);
  const purger = (retentionHours: number, extra: { batchSize?: number; registry?: Registry; sql?: typeof sql } = {}) =>
    new OutboxPurger({ sql, retentionHours, logger, ...extra });

  it('deletes rows published before the retention and keeps younger and unpublished ones', async () => {
    const ids = await rows([hoursAgo(400), hoursAgo(200), hoursAgo(169), hoursAgo(167), hoursAgo(1), null]);
    const registry = new Registry();

    expect(await purger(168, { registry }).purge(NOW)).toBe(3);

    expect(await remaining()).toEqual(ids.slice(3));
    const metric = await registry.getSingleMetric('outbox_purged_total')!.get();
    expect(metric.values[0].value).toBe(3);
    // Nothing more to do: a second round deletes nothing.
    expect(await purger(168).purge(NOW)).toBe(0);
    expect(await remaining()).toEqual(ids.slice(3));
  });

  it('works through many rows in batches of batchSize', async () => {
    const ids = await rows([...Array.from({ length: 11 }, (_, i) => hoursAgo(300 - i)), hoursAgo(2)]);

    expect(await purger(24, { batchSize: 3 }).purge(NOW)).toBe(11);

    expect(await remaining()).toEqual(ids.slice(11));
  });

  it('stops at the first row still waiting to be published: nothing past it goes in that round', async () => {
    const ids = await rows([hoursAgo(500), null, hoursAgo(400), hoursAgo(300)]);

    expect(await purger(168).purge(NOW)).toBe(1);
    expect(await remaining()).toEqual(ids.slice(1));

    // Once it is published (and old enough), the rest goes.
    await ds.query(`UPDATE outbox SET published_at = $2 WHERE id = $1`, [ids[1], hoursAgo(200)]);
    expect(await purger(168).purge(NOW)).toBe(3);
    expect(await remaining()).toEqual([]);
  });

  it('never deletes a row that commits unpublished below the rows it is deleting', async () => {
    // A writer whose transaction holds a lower id commits only after the purge has chosen where to stop.
    const writer = new Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      const key = newId();
      await writeOutbox({ query: (text: string, values?: unknown[]) => writer.query(text, values) }, [
        { topic, key, eventType: 'participant.onboarded', revision: 1, payload: onboarded(key, 1) },
      ]);
      const [{ id: late }] = (await writer.query<{ id: string }>('SELECT id::text AS id FROM outbox WHERE key = $1', [key])).rows;
      const ids = await rows([hoursAgo(300), hoursAgo(250), hoursAgo(1)]);
      expect(BigInt(late)).toBeLessThan(BigInt(ids[0]));

      let calls = 0;
      const committing = {
        rows: async <T extends QueryResultRow>(text: string, params?: unknown[]): Promise<T[]> => {
          const result = await sql.rows<T>(text, params);
          if (calls++ === 0) await writer.query('COMMIT'); // after the stop row was found, before any DELETE
          return result;
        },
      };

      expect(await purger(168, { sql: committing }).purge(NOW)).toBe(2);

      expect(await remaining()).toEqual([late, ids[2]]);
      const [{ published_at }] = (await ds.query('SELECT published_at FROM outbox WHERE id = $1', [late])) as { published_at: Date | null }[];
      expect(published_at).toBeNull();
    } finally {
      await writer.end();
    }
  });

  it('OUTBOX_RETENTION_HOURS=0 keeps every row', async () => {
    const ids = await rows([hoursAgo(100_000), hoursAgo(500)]);
    const p = purger(0);

    expect(p.enabled).toBe(false);
    expect(await p.purge(NOW)).toBe(0);
    expect(await remaining()).toEqual(ids);
  });

  it('reports a failure as 0 rows and tries again on the next call', async () => {
    const ids = await rows([hoursAgo(300)]);
    let fail = true;
    const flaky = {
      rows: async <T extends QueryResultRow>(text: string, params?: unknown[]): Promise<T[]> => {
        if (fail) throw new Error('connection lost');
        return sql.rows<T>(text, params);
      },
    };
    const p = purger(168, { sql: flaky });

    expect(await p.purge(NOW)).toBe(0);
    expect(await remaining()).toEqual(ids);
    fail = false;
    expect(await p.purge(NOW)).toBe(1);
    expect(await remaining()).toEqual([]);
  });
});

describe('OutboxPurger schedule', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('purges a minute after start, then hourly, and not after stop; never with retention 0', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    let rounds = 0;
    // A database with nothing to delete: each round is the stop-row look-up and one empty DELETE.
    const sql = {
      rows: async <T extends QueryResultRow>(text: string): Promise<T[]> => {
        if (text.startsWith('SELECT id')) {
          rounds += 1;
          return [];
        }
        return [{ n: 0, last: null }] as unknown as T[];
      },
    };
    const settle = () => new Promise((r) => setImmediate(r));
    const p = new OutboxPurger({ sql, retentionHours: 168, logger });
    p.start();

    jest.advanceTimersByTime(OUTBOX_PURGE_FIRST_DELAY_MS - 1);
    await settle();
    expect(rounds).toBe(0);
    jest.advanceTimersByTime(1);
    await settle();
    expect(rounds).toBe(1);
    jest.advanceTimersByTime(OUTBOX_PURGE_INTERVAL_MS);
    await settle();
    expect(rounds).toBe(2);

    await p.stop();
    jest.advanceTimersByTime(3 * OUTBOX_PURGE_INTERVAL_MS);
    await settle();
    expect(rounds).toBe(2);

    const off = new OutboxPurger({ sql, retentionHours: 0, logger });
    off.start();
    jest.advanceTimersByTime(3 * OUTBOX_PURGE_INTERVAL_MS);
    await settle();
    expect(rounds).toBe(2);
  });
});
