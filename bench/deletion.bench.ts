/**
 * Bulk deletion benchmark (`npm run bench -- deletion`): one POST /bulk/diamonds/delete of 1,000 entries.
 *
 * Starts an embedded PostgreSQL (durable settings, throw-away data dir), auth + platform in this process (in-process
 * event bus, the relay running), onboards two producers and registers 1,000 diamonds for each through the API.
 * Three requests of 1,000 entries each, timed end to end (BENCH_DELETE_ROUNDS times, default 3; the median):
 *  - `platform.bulk_delete_1000.unknown`: well-formed ids that do not exist (every entry not_found);
 *  - `platform.bulk_delete_1000.not_owner`: the other producer's diamonds (every entry not_owner, nothing deleted);
 *  - `platform.bulk_delete_1000.own`: the caller's own diamonds (every entry succeeds: rows, custody entries and
 *    outbox rows; new diamonds are registered between rounds).
 * Anchor, in the same run: raw PostgreSQL doing the writes of the successful request in one transaction on
 * equivalent rows (a database migrated with platform's migrations): 1,000 diamonds deleted by id with one statement,
 * 2,000 outbox rows inserted with one. Goal (issue #36): under 1 s for 1,000 entries.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import { withDatabase } from '@dtp/database';
import { outboxInsert } from '@dtp/events';
import { loadConfig } from '@dtp/service-kit';
import { platformService } from '@dtp/platform';
import type { Benchmark } from './run';
import { inProcessStack, median, postJson as post, round } from './support';

const N = 1000;
const ROUNDS = Number(process.env.BENCH_DELETE_ROUNDS ?? 3);

const bench: Benchmark = async (report) => {
  const stack = await inProcessStack('deletion', { databases: ['bench_anchor'] });
  const clients: Client[] = [];
  try {
    const anchorConfig = loadConfig('platform', platformService.configClass, { PORT: '0', DATABASE_URL: withDatabase(stack.pgUrl, 'bench_anchor') });
    await platformService.migrate(anchorConfig, pino({ level: 'warn' }));
    const url = stack.platformUrl;
    const db = new Client({ connectionString: stack.platformDb });
    const anchorDb = new Client({ connectionString: anchorConfig.DATABASE_URL });
    for (const c of [db, anchorDb]) {
      c.on('error', () => undefined);
      await c.connect();
      clients.push(c);
    }

    const me = await stack.producer('Bench Mining');
    const other = await stack.producer('Other Mining');
    let seq = 0;
    const registerMany = async (who: { auth: Record<string, string> }, n: number): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, () =>
            post<{ diamond_id: string }>(
              `${url}/diamonds/rough/create`,
              { box_id: 'DELETE-BOX', participant_id: `del-${seq++}`, participant_timestamp: '2024-03-01T10:00:00Z', rough: { carats: 1.25 } },
              who.auth,
            ),
          ),
        );
        ids.push(...batch.map((d) => d.diamond_id));
      }
      return ids;
    };
    const timedDelete = async (ids: string[], expected: string): Promise<number> => {
      const t = process.hrtime.bigint();
      const res = await post<{ results: { status: string; reason?: string }[] }>(
        `${url}/bulk/diamonds/delete`,
        { diamonds: ids.map((diamond_id) => ({ diamond_id })) },
        me.auth,
      );
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      const bad = res.results.filter((r) => (r.status === 'success' ? 'success' : r.reason) !== expected);
      if (res.results.length !== ids.length || bad.length > 0)
        throw new Error(`bulk delete: ${bad.length} of ${ids.length} entries not ${expected}: ${JSON.stringify(bad[0])}`);
      return ms;
    };

    const theirs = await registerMany(other, N);
    const unknown = Array.from({ length: N }, (_, i) => `01hzzzzzzzzzzzzzzz${String(i).padStart(8, '0')}`);
    await timedDelete(unknown.slice(0, 10), 'not_found'); // warm-up: JIT, pools, JWKS
    const times = { unknown: [] as number[], not_owner: [] as number[], own: [] as number[], anchor: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      times.unknown.push(await timedDelete(unknown, 'not_found'));
      times.not_owner.push(await timedDelete(theirs, 'not_owner'));
      times.own.push(await timedDelete(await registerMany(me, N), 'success'));
      times.anchor.push(await anchorDelete(anchorDb, db, N));
    }
    const anchor = median(times.anchor);
    for (const k of ['unknown', 'not_owner', 'own'] as const) {
      const v = median(times[k]);
      report({ name: `platform.bulk_delete_1000.${k}`, value: round(v, 1), unit: 'ms', anchor: round(anchor, 1), ratio: round(v / anchor, 2) });
    }
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await stack.close();
  }
};

/**
 * The anchor: `n` diamond rows copied from platform's own (the rows the successful request deleted there are gone,
 * so the copies are made from whatever platform holds, under new ids) into the anchor database, then deleted by id in
 * one transaction with their 2n outbox rows; the time of that transaction.
 */
async function anchorDelete(anchorDb: Client, platformDb: Client, n: number): Promise<number> {
  const { rows } = await platformDb.query<Record<string, unknown>>(`SELECT * FROM diamonds LIMIT $1`, [n]);
  if (rows.length < n) throw new Error(`anchor: only ${rows.length} diamonds to copy`);
  const suffix = randomBytes(4).toString('hex');
  const copies = rows.map((r, i) => ({
    ...r,
    diamond_id: `01hanchor${suffix}${String(i).padStart(9, '0')}`,
    legacy_id: randomUUID(),
    participant_id: `a-${suffix}-${i}`,
    custody_head: null,
  }));
  await anchorDb.query(`INSERT INTO diamonds SELECT * FROM jsonb_populate_recordset(NULL::diamonds, $1::jsonb)`, [JSON.stringify(copies)]);
  const ids = copies.map((c) => c.diamond_id);
  const t = process.hrtime.bigint();
  await anchorDb.query('BEGIN');
  await anchorDb.query(`DELETE FROM diamonds WHERE diamond_id = ANY($1::text[])`, [ids]);
  const events = ids.flatMap((id) => [
    { topic: 't', key: id, eventType: 'diamond.deleted', revision: 2, payload: { event_type: 'diamond.deleted', data: { diamond_id: id } } },
    { topic: 't', key: id, eventType: 'diamond.deleted', revision: 2, payload: null },
  ]);
  const o = outboxInsert(events);
  await anchorDb.query(o.sql, o.values);
  await anchorDb.query('COMMIT');
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export default bench;
