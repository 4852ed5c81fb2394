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
import { rm } from 'node:fs/promises';
import { Client } from 'pg';
import pino from 'pino';
import { ensureDatabase, withDatabase } from '@dtp/database';
import { InProcessTransport, outboxInsert } from '@dtp/events';
import { loadConfig, RunningService } from '@dtp/service-kit';
import { authService } from '@dtp/auth';
import { platformService } from '@dtp/platform';
import type { Benchmark } from './run';

const ISSUER = 'http://auth.bench';
const AUDIENCE = 'http://platform.bench';
const ADMIN = `bench-${randomBytes(24).toString('base64url')}`;
const N = 1000;
const ROUNDS = Number(process.env.BENCH_DELETE_ROUNDS ?? 3);

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function post<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres, freePort } = await import('../tools/embedded-pg.mjs');
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const dataDir = `/tmp/dtp-bench-deletion-${tag}`;
  const blobDir = `/tmp/dtp-bench-deletion-blobs-${tag}`;
  const pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, fast: false });
  const logger = pino({ level: 'warn' });
  const transport = new InProcessTransport((err) => logger.error({ err }, 'event handler failed'));
  const services: RunningService[] = [];
  const clients: Client[] = [];
  try {
    for (const name of ['bench_auth', 'bench_platform', 'bench_anchor']) await ensureDatabase(withDatabase(pg.url, name));
    const common = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', AUTH_ISSUER: ISSUER, PLATFORM_AUDIENCE: AUDIENCE };
    const authConfig = loadConfig('auth', authService.configClass, { ...common, DATABASE_URL: withDatabase(pg.url, 'bench_auth'), AUTH_ADMIN_TOKEN: ADMIN });
    const platformConfig = loadConfig('platform', platformService.configClass, {
      ...common,
      DATABASE_URL: withDatabase(pg.url, 'bench_platform'),
      AUTH_JWKS_URL: 'http://127.0.0.1:9/unused',
      BLOB_STORE_DIR: blobDir,
    });
    const anchorConfig = loadConfig('platform', platformService.configClass, { PORT: '0', DATABASE_URL: withDatabase(pg.url, 'bench_anchor') });
    await authService.migrate(authConfig, logger);
    await platformService.migrate(platformConfig, logger);
    await platformService.migrate(anchorConfig, logger);
    const auth = await authService.start(authConfig, { transport }, logger);
    services.push(auth);
    const authUrl = auth.url.replace('localhost', '127.0.0.1');
    platformConfig.AUTH_JWKS_URL = `${authUrl}/.well-known/jwks.json`;
    const platform = await platformService.start(platformConfig, { transport }, logger);
    services.push(platform);
    const url = platform.url.replace('localhost', '127.0.0.1');

    const db = new Client({ connectionString: withDatabase(pg.url, 'bench_platform') });
    const anchorDb = new Client({ connectionString: withDatabase(pg.url, 'bench_anchor') });
    for (const c of [db, anchorDb]) {
      c.on('error', () => undefined);
      await c.connect();
      clients.push(c);
    }

    const producer = async (name: string) => {
      const p = await post<{ participant_id: string; client_id: string; client_secret: string }>(
        `${authUrl}/admin/participants`,
        { name, role: 'producer', provenance: { name: 'Jwaneng', type: 'mine', country_code: 'BW' } },
        { authorization: `Bearer ${ADMIN}` },
      );
      const t = await post<{ access_token: string }>(`${authUrl}/oauth/token`, {
        grant_type: 'client_credentials',
        client_id: p.client_id,
        client_secret: p.client_secret,
        audience: AUDIENCE,
      });
      for (let i = 0; ; i++) {
        if ((await db.query('SELECT 1 FROM participants WHERE participant_id = $1', [p.participant_id])).rowCount === 1) break;
        if (i > 200) throw new Error('platform never received the onboarding event');
        await new Promise((r) => setTimeout(r, 50));
      }
      return { id: p.participant_id, auth: { authorization: `Bearer ${t.access_token}` } };
    };
    const me = await producer('Bench Mining');
    const other = await producer('Other Mining');
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
      report({ name: `platform.bulk_delete_1000.${k}`, value: round(v), unit: 'ms', anchor: round(anchor), ratio: round(v / anchor, 2) });
    }
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    for (const s of services.reverse()) await s.close().catch(() => undefined);
    await transport.close();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(blobDir, { recursive: true, force: true });
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
