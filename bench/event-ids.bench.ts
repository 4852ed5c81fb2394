/**
 * Event, delivery and legacy ids benchmark (`npm run bench -- event-ids`): the WAL that writing a participant event
 * and its webhook deliveries costs on tables that have grown, with the ids the service makes (UUIDv7, ordered by
 * time: `newEventId()` for events, `dtp_uuid_v7()` for deliveries) against random ones (UUIDv4, what both were
 * before); and the same for a new diamond's row, whose legacy `id` (`newLegacyId()`) has a unique index of its own.
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
 * Diamonds, the same way: per round, on an emptied table, BENCH_IDS_DIAMONDS rows (default 100,000: copies of one row
 * as registration makes it, `newDiamondRow`) with legacy ids of the kind measured, a CHECKPOINT, then BENCH_IDS_WRITES
 * inserts of a new diamond row, each its own transaction. The other keys of the row (diamond id, box, uploader) come
 * in rising order in both, as a producer's own sequential participant ids would: what differs is the legacy id.
 * Diamonds are never purged, so that index only grows.
 *
 * Figures: `event_ids.wal_bytes_per_event.10_webhooks` and `event_ids.wal_bytes_per_diamond` (ordered ids; anchor:
 * random ids; ratio, lower is better), and a `#` line each with the time per statement of each kind.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ensureDatabase, runMigrations, withDatabase } from '@dtp/database';
import { newDiamondId, newEventId, newLegacyId } from '@dtp/domain';
import { DIAMOND_COLUMNS, type DiamondRow } from '../apps/platform/src/diamonds/diamond.entity';
import { diamondRows, diamondRowValues } from '../apps/platform/src/diamonds/diamonds.repository';
import { newDiamondRow } from '../apps/platform/src/diamonds/new-diamond-row';
import { platformEntities } from '../apps/platform/src/entities';
import { platformMigrations } from '../apps/platform/src/migrations';
import { participantEventsCtes, type ParticipantEventWrite } from '../apps/platform/src/webhooks/participant-events';
import type { Benchmark } from './run';
import { mean, round } from './support';

const EVENTS = Number(process.env.BENCH_IDS_EVENTS ?? 100_000);
const WRITES = Number(process.env.BENCH_IDS_WRITES ?? 1_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_IDS_ROUNDS ?? 2));
const DIAMONDS = Number(process.env.BENCH_IDS_DIAMONDS ?? 100_000);
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

/** A new rough diamond's row as registration makes it, with the legacy id given, as the statement's parameters. */
function diamondValues(legacyId: string, i: number): unknown[] {
  const now = new Date();
  const row: DiamondRow = newDiamondRow(
    {
      uploader_id: PARTICIPANT,
      holder_id: PARTICIPANT,
      producer_uuid: '0ed6f7d5-9bbe-4136-8ae6-e99c475b3ea7',
      box_scope: PARTICIPANT,
      box_id: 'SIGHT-2024-03',
      participant_id: `w-${String(i).padStart(8, '0')}`,
      diamond_parent_id: null,
      participant_parent_id: null,
      legacy_parent_id: null,
      lifecycle_state: 'rough',
      current_stage: 'rough',
      assurance_level: 'assured',
      provenance_pending: false,
      box_description: 'March sight',
      sight_no: 3,
      sight_year: 2024,
      participant_timestamp: '2024-03-01T10:00:00Z',
      rough: { carats: '1.25', colour: 'D', model: 'M-1', quality: 'Q1', stress: 'light stress' },
      polished: {},
      provenance: { provenance_name: 'Jwaneng', provenance_type: 'mine', is_locked: true, is_country_code_available: true, country_code: 'BW' },
      entity_specific_tags: null,
      supplementary_tags: null,
    } as Parameters<typeof newDiamondRow>[0],
    now,
  );
  row.legacy_id = legacyId;
  return diamondRowValues(row);
}

const DIAMOND_INSERT = `INSERT INTO diamonds (${DIAMOND_COLUMNS.join(', ')}) VALUES ${diamondRows(1)}`;

/** One diamonds round: the table emptied and filled with `kind` legacy ids, a checkpoint, then WRITES new diamonds. */
async function diamondsRound(db: Client, kind: Kind): Promise<{ wal: number; ms: number }> {
  await db.query(`TRUNCATE diamonds CASCADE`);
  const template = diamondValues(randomUUID(), 0);
  await db.query(DIAMOND_INSERT, template);
  // copies of that row, each with its own ids and box key, in one statement
  const copy = DIAMOND_COLUMNS.map((c) => {
    if (c === 'legacy_id') return kind === 'ordered' ? 'dtp_uuid_v7()' : 'gen_random_uuid()';
    if (c === 'diamond_id' || c === 'version_id') return `'00' || lpad(s::text, 24, '0')`;
    if (c === 'participant_id') return `'filled-' || lpad(s::text, 8, '0')`;
    return c;
  });
  await db.query(
    `INSERT INTO diamonds (${DIAMOND_COLUMNS.join(', ')}) SELECT ${copy.join(', ')} FROM diamonds, generate_series(1, $1::int) s WHERE participant_id = $2`,
    [DIAMONDS, template[DIAMOND_COLUMNS.indexOf('participant_id')]],
  );
  await db.query(`VACUUM ANALYZE diamonds`);
  await db.query(`CHECKPOINT`);
  const before = await walBytes(db);
  const started = performance.now();
  for (let i = 1; i <= WRITES; i += 1) {
    const values = diamondValues(kind === 'ordered' ? newLegacyId() : randomUUID(), i);
    values[DIAMOND_COLUMNS.indexOf('diamond_id')] = newDiamondId();
    await db.query(DIAMOND_INSERT, values);
  }
  const ms = (performance.now() - started) / WRITES;
  return { wal: Number((await walBytes(db)) - before) / WRITES, ms };
}

/**
 * ROUNDS rounds of each kind, alternating, random first: the `#` line (`line` given the rounds' figures) and the
 * figure `name` (ordered ids, against random ones).
 */
async function compare(
  db: Client,
  report: Parameters<Benchmark>[0],
  name: string,
  measure: (db: Client, kind: Kind) => Promise<{ wal: number; ms: number }>,
  line: (figures: string) => string,
): Promise<void> {
  const runs: Record<Kind, { wal: number; ms: number }[]> = { random: [], ordered: [] };
  for (let r = 0; r < ROUNDS; r += 1) for (const kind of ['random', 'ordered'] as const) runs[kind].push(await measure(db, kind));
  const wal = (k: Kind) => mean(runs[k].map((x) => x.wal));
  const each = (k: Kind, f: (x: { wal: number; ms: number }) => string) => runs[k].map(f).join(', ');
  process.stderr.write(
    line(
      `WAL bytes random ${each('random', (x) => String(Math.round(x.wal)))}, ordered ${each('ordered', (x) => String(Math.round(x.wal)))}; ` +
        `ms per statement random ${each('random', (x) => x.ms.toFixed(2))}, ordered ${each('ordered', (x) => x.ms.toFixed(2))}`,
    ) + '\n',
  );
  report({ name, value: Math.round(wal('ordered')), unit: 'bytes', anchor: Math.round(wal('random')), ratio: round(wal('ordered') / wal('random'), 3) });
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
      await compare(
        db,
        report,
        'event_ids.wal_bytes_per_event.10_webhooks',
        measuredRound,
        (n) => `# per event with ${WEBHOOKS} webhooks, ${EVENTS} events and ${EVENTS * WEBHOOKS} deliveries in the tables, after a checkpoint: ${n}`,
      );
      await compare(
        db,
        report,
        'event_ids.wal_bytes_per_diamond',
        diamondsRound,
        (n) => `# per new diamond, ${DIAMONDS} diamonds in the table, after a checkpoint: ${n}`,
      );
    } finally {
      await db.end();
    }
  } finally {
    await pg.stop();
  }
};

export default bench;
