/**
 * Event and delivery ids benchmark (`npm run bench -- event-ids`): the WAL that writing a participant event and its
 * webhook deliveries costs on tables that have grown, with the ids the service makes (UUIDv7, ordered by time:
 * `newEventId()` for events, `dtp_uuid_v7()` for deliveries) against random ones (UUIDv4, what both were before).
 *
 * Embedded PostgreSQL with durable settings (fsync and full-page writes on, as in production), a database migrated
 * with platform's own migrations, 10 webhooks of one participant. Per round, on emptied tables: BENCH_IDS_EVENTS
 * events (default 100,000) and a delivery of each to every webhook (1,000,000) are filled in, with ids of the kind
 * measured; then a CHECKPOINT, then BENCH_IDS_WRITES (default 1,000) of the statement platform writes an event with
 * (`participantEventsCtes`: the event, and its deliveries by a join with the webhooks), one at a time, each its own
 * transaction. Rounds alternate, random first (BENCH_IDS_ROUNDS of each, default 2).
 *
 * Why it matters: a B-tree insert goes to the page its key sorts to. Random keys land on any page of the unique index
 * of `participant_events.event_id` and of the deliveries' primary key, and the first change to a page after a
 * checkpoint writes the whole page (8 KiB) to the WAL. Ordered keys land on the last pages. How much of that a
 * deployment sees depends on how many of the index's pages one checkpoint's inserts reach: with 30 days of events
 * kept, soon all of them at a few events a second; at high rates the whole pages are written once per checkpoint
 * and the cost spreads over more rows. The figure is the first writes after a checkpoint, the worst of the cycle.
 *
 * Figure: `event_ids.wal_bytes_per_event.10_webhooks` (ordered ids; anchor: random ids; ratio, lower is better),
 * and a `#` line with the time per statement of each kind.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ensureDatabase, runMigrations, withDatabase } from '@dtp/database';
import { newEventId } from '@dtp/domain';
import { platformEntities } from '../apps/platform/src/entities';
import { platformMigrations } from '../apps/platform/src/migrations';
import { participantEventsCtes, type ParticipantEventWrite } from '../apps/platform/src/webhooks/participant-events';
import type { Benchmark } from './run';
import { mean, round } from './support';

const EVENTS = Number(process.env.BENCH_IDS_EVENTS ?? 100_000);
const WRITES = Number(process.env.BENCH_IDS_WRITES ?? 1_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_IDS_ROUNDS ?? 2));
const WEBHOOKS = 10;
const PARTICIPANT = 'bench-ids-participant';

type Kind = 'random' | 'ordered';

/** The statement platform writes one event with, its delivery ids made as `kind` says. */
function eventStatement(kind: Kind, i: number): { sql: string; values: unknown[] } {
  const event: ParticipantEventWrite = {
    event_id: kind === 'ordered' ? newEventId() : randomUUID(),
    participant_id: PARTICIPANT,
    type: 'dtp.diamond.updated',
    subject: `bench-diamond-${i}`,
    time: new Date(),
    data: JSON.stringify({ action: 'registered', diamond_id: `bench-diamond-${i}` }),
  };
  const c = participantEventsCtes([event], 1);
  if (!c.sql.includes('dtp_uuid_v7()')) throw new Error('participantEventsCtes no longer makes delivery ids with dtp_uuid_v7()');
  return { sql: `WITH ${kind === 'ordered' ? c.sql : c.sql.replace('dtp_uuid_v7()', 'gen_random_uuid()')} SELECT 1`, values: c.values };
}

async function walBytes(db: Client): Promise<bigint> {
  return BigInt((await db.query<{ b: string }>(`SELECT (pg_current_wal_lsn() - '0/0')::text AS b`)).rows[0].b);
}

/** One round: tables emptied and filled with `kind` ids, a checkpoint, then WRITES events. WAL bytes and ms per event. */
async function measuredRound(db: Client, kind: Kind): Promise<{ wal: number; ms: number }> {
  const id = kind === 'ordered' ? 'dtp_uuid_v7()' : 'gen_random_uuid()';
  await db.query(`TRUNCATE participant_events, webhook_deliveries`);
  await db.query(
    `INSERT INTO participant_events (event_id, participant_id, type, subject, time, data)
     SELECT ${id}, $1, 'dtp.diamond.updated', 'filled-' || s, now(), '{"action":"registered"}' FROM generate_series(1, $2::int) s`,
    [PARTICIPANT, EVENTS],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_seq, event_id, type, subject, status)
     SELECT ${id}, w.webhook_id, e.seq, e.event_id, e.type, e.subject, 'delivered' FROM participant_events e CROSS JOIN webhooks w`,
  );
  await db.query(`VACUUM ANALYZE participant_events, webhook_deliveries`);
  await db.query(`CHECKPOINT`);
  const before = await walBytes(db);
  const started = performance.now();
  for (let i = 0; i < WRITES; i += 1) {
    const s = eventStatement(kind, i);
    await db.query(s.sql, s.values);
  }
  const ms = (performance.now() - started) / WRITES;
  return { wal: Number((await walBytes(db)) - before) / WRITES, ms };
}

const bench: Benchmark = async (report) => {
  const { startEmbeddedPostgres } = await import('../tools/embedded-pg.mjs');
  const dataDir = `/tmp/dtp-bench-ids-${process.pid}-${randomBytes(4).toString('hex')}`;
  // durable: full-page writes are what this measures
  const pg = await startEmbeddedPostgres({ dataDir, persistent: false, fast: false });
  const url = withDatabase(pg.url, 'bench_ids');
  try {
    await ensureDatabase(url);
    await runMigrations({ url, service: 'platform', entities: platformEntities, migrations: platformMigrations });
    const db = new Client({ connectionString: url });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO webhooks (webhook_id, participant_id, url, secret, created_at)
         SELECT gen_random_uuid(), $1, 'https://erp.example/hook-' || n, 'whsec_bench', now() FROM generate_series(1, $2::int) n`,
        [PARTICIPANT, WEBHOOKS],
      );
      const runs: Record<Kind, { wal: number; ms: number }[]> = { random: [], ordered: [] };
      for (let r = 0; r < ROUNDS; r += 1) for (const kind of ['random', 'ordered'] as const) runs[kind].push(await measuredRound(db, kind));
      const wal = (k: Kind) => mean(runs[k].map((x) => x.wal));
      process.stderr.write(
        `# per event with ${WEBHOOKS} webhooks, ${EVENTS} events and ${EVENTS * WEBHOOKS} deliveries in the tables, after a checkpoint: ` +
          `WAL bytes random ${runs.random.map((x) => Math.round(x.wal)).join(', ')}, ordered ${runs.ordered.map((x) => Math.round(x.wal)).join(', ')}; ` +
          `ms per statement random ${runs.random.map((x) => x.ms.toFixed(2)).join(', ')}, ordered ${runs.ordered.map((x) => x.ms.toFixed(2)).join(', ')}\n`,
      );
      report({
        name: 'event_ids.wal_bytes_per_event.10_webhooks',
        value: Math.round(wal('ordered')),
        unit: 'bytes',
        anchor: Math.round(wal('random')),
        ratio: round(wal('ordered') / wal('random'), 3),
      });
    } finally {
      await db.end();
    }
  } finally {
    await pg.stop();
  }
};

export default bench;
