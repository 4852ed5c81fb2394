import { Client } from 'pg';
import { runMigrations, Sql, sqlOn } from '@dtp/database';
import { createTestDatabase, noSnapshotHeld } from '@dtp/testing';
import { platformEntities } from '../src/entities';
import { platformMigrations } from '../src/migrations';
import { participantEvent, writeParticipantEvents } from '../src/webhooks/participant-events';
import { AttemptOutcome, WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { waitFor } from './helpers';

/** A node of a plan as `EXPLAIN (FORMAT JSON)` gives it. */
interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/**
 * A platform database of its own, migrated, and one connection to it (one session: its own statistics). With
 * `statisticsByHand`, autovacuum leaves the delivery, event and webhook tables alone: statistics only when the test takes
 * them (an analyse also makes the server plan prepared statements again).
 */
async function claimDatabase(name: string, opts: { statisticsByHand?: boolean } = {}): Promise<{ db: Client; sql: Sql; url: string }> {
  const url = await createTestDatabase(name);
  await runMigrations({ url, service: 'platform', entities: platformEntities, migrations: platformMigrations });
  const db = new Client({ connectionString: url });
  await db.connect();
  if (opts.statisticsByHand) {
    await db.query(`ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)`);
    await db.query(`ALTER TABLE participant_events SET (autovacuum_enabled = false)`);
    await db.query(`ALTER TABLE webhooks SET (autovacuum_enabled = false)`);
  }
  return { db, sql: sqlOn(db), url };
}

/** A webhook of `participantId` that worker-1 leases for the next hour. */
async function leasedWebhook(db: Client, webhookId: string, participantId: string): Promise<void> {
  await db.query(
    `INSERT INTO webhooks (webhook_id, participant_id, url, secret, created_at, leased_by, lease_until)
                  VALUES ($1, $2, 'http://127.0.0.1:9/hook', 'whsec_x', now(), 'worker-1', now() + interval '1 hour')`,
    [webhookId, participantId],
  );
}

/** `count` events of p1, one per diamond from d`from` on (each its own subject). */
function diamondEvents(count: number, from = 0): ReturnType<typeof participantEvent>[] {
  return Array.from({ length: count }, (_, i) => participantEvent('p1', 'dtp.diamond.deleted', `d${from + i}`, { diamond_id: `d${from + i}` }, new Date()));
}

/** Until session `pid` waits for a lock (another transaction's row), as `observer` sees it in `pg_stat_activity`. */
async function waitingOnLock(observer: Client, pid: number, what: string): Promise<void> {
  await waitFor(
    what,
    async () =>
      (await observer.query<{ waiting: boolean }>(`SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`, [pid])).rows[0]?.waiting,
    5_000,
  );
}

/** `work` in a transaction that is then rolled back: every claim starts from the same rows. */
async function rolledBack<T>(db: Client, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    return await work();
  } finally {
    await db.query('ROLLBACK');
  }
}

/**
 * Pages (hits and reads) of the webhook and event tables and their indexes that `work` reads, in a rolled-back
 * transaction; with `relation`, of that table or index only.
 */
async function pagesDuring<T>(db: Client, work: () => Promise<T>, relation?: string): Promise<{ pages: number; result: T }> {
  // the backend's counts not yet reported: read before and after, within one transaction (reported only at its end)
  const pagesSoFar = async (): Promise<number> =>
    (
      await db.query<{ pages: number }>(
        `SELECT coalesce(sum(pg_stat_get_xact_blocks_fetched(c.oid)), 0)::int AS pages
           FROM pg_class c WHERE CASE WHEN $1::text IS NULL THEN c.relname LIKE 'webhook%' OR c.relname LIKE 'participant_events%'
                                      ELSE c.relname = $1 END`,
        [relation ?? null],
      )
    ).rows[0].pages;
  return rolledBack(db, async () => {
    const before = await pagesSoFar();
    const result = await work();
    return { pages: (await pagesSoFar()) - before, result };
  });
}

/** The scans of `webhook_deliveries` in a plan, each as its node type and index (a bitmap index scan names only its index). */
function deliveryScans(node: PlanNode, into: string[] = []): string[] {
  if ((node['Relation Name'] === 'webhook_deliveries' && node['Node Type'] !== 'ModifyTable') || node['Index Name']?.startsWith('webhook_deliveries')) {
    into.push([node['Node Type'], node['Index Name']].filter(Boolean).join(' '));
  }
  for (const child of node.Plans ?? []) deliveryScans(child, into);
  return into;
}

/** The plan the server uses for the claim's prepared statement (`webhook_claim`) on this connection, as the worker runs it. */
async function claimPlan(db: Client, webhookId: string): Promise<PlanNode> {
  const [{ 'QUERY PLAN': plan }] = (
    await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) EXECUTE webhook_claim('${webhookId}', 'worker-1', 20, 60000)`)
  ).rows;
  return plan[0].Plan;
}

/**
 * How the claim's update reaches the rows it counts: the scans of `webhook_deliveries` in the update's own input,
 * not in the walk (the CTEs, which are the update's init plans).
 */
function claimUpdateReads(plan: PlanNode): string[] {
  return (plan.Plans ?? []).filter((p) => p['Parent Relationship'] !== 'InitPlan').flatMap((p) => deliveryScans(p));
}

/**
 * What the delivery worker's claim writes (webhooks.repository.ts `claimBatch`, migration 1765159200000): counting
 * each claimed delivery's attempt is a heap-only update, with no index entry. On full pages it was a new tuple with an
 * entry in each of the table's five indexes, for every delivery, thousands a second beside the registrations.
 */
describe('the delivery claim', () => {
  const repo = new WebhooksRepository();
  const webhookId = '0b5c6a49-8d57-4b40-9a8f-6d3f1e0c2a11';
  let db: Client;
  let sql: Sql;

  beforeAll(async () => {
    ({ db, sql } = await claimDatabase('platform_webhook_claim'));
    await leasedWebhook(db, webhookId, 'p1');
    // enough deliveries to fill several pages: a full page leaves no room for a heap-only update
    await writeParticipantEvents(sql, diamondEvents(300));
  });

  afterAll(async () => {
    await db?.end();
  });

  it('counts each attempt in a heap-only update, in event order, one per subject', async () => {
    await rolledBack(db, async () => {
      const claimed = await repo.claimBatch(sql, webhookId, 'worker-1', 20, 60_000);
      expect(claimed).toHaveLength(20);
      expect(claimed.map((d) => d.attempts)).toEqual(Array(20).fill(1));
      expect(claimed.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${i}`));
      // this transaction's own counts for the table (the webhook's lease renewal is another table)
      const { rows } = await db.query(
        `SELECT pg_stat_get_xact_tuples_updated('webhook_deliveries'::regclass)::int AS updated,
                pg_stat_get_xact_tuples_hot_updated('webhook_deliveries'::regclass)::int AS hot`,
      );
      expect(rows[0]).toEqual({ updated: 20, hot: 20 });
    });
  });

  it("commits the worker's own writes without waiting for the WAL flush, in their own transaction only", async () => {
    // Each statement sets synchronous_commit for its transaction only (it reverts at the transaction's end), and it
    // does so when it writes a row: the look-up before the write is evaluated per row.
    const setting = async () => (await db.query(`SHOW synchronous_commit`)).rows[0].synchronous_commit as string;
    await db.query(`SET synchronous_commit = on`); // this session's own setting (the test server runs without it)
    const cases: [string, () => Promise<unknown>][] = [
      [
        'lease',
        async () => {
          await db.query(`UPDATE webhooks SET lease_until = NULL, leased_by = NULL WHERE webhook_id = $1`, [webhookId]);
          expect(await setting()).toBe('on');
          const leased = await repo.leaseWebhooks(sql, 'worker-1', 1, 60_000);
          expect(leased.map((w) => w.webhook_id)).toEqual([webhookId]);
        },
      ],
      ['claim', async () => expect(await repo.claimBatch(sql, webhookId, 'worker-1', 1, 60_000)).toHaveLength(1)],
      [
        'outcomes',
        async () => {
          const { rows } = await db.query(`SELECT delivery_id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY event_seq LIMIT 1`, [webhookId]);
          await repo.recordAttempts(sql, [
            { delivery_id: rows[0].delivery_id, attempts: 0, status: 'delivered', code: 204, error: null, nextAttemptAt: null, at: new Date() },
          ]);
          const after = await db.query(`SELECT status FROM webhook_deliveries WHERE delivery_id = $1`, [rows[0].delivery_id]);
          expect(after.rows[0].status).toBe('delivered');
        },
      ],
      ['renewal', async () => expect(await repo.renewLease(sql, webhookId, 'worker-1', 60_000)).toBe(true)],
      ['walk start', () => repo.moveWalkStart(sql, webhookId)],
      ['release', () => repo.release(sql, webhookId, 'worker-1')],
    ];
    for (const [label, write] of cases) {
      await rolledBack(db, async () => {
        await write();
        expect([label, await setting()]).toEqual([label, 'off']);
      });
      expect([label, await setting()]).toEqual([label, 'on']);
    }
  });

  it('claims through its prepared statement after a column is added under it, and after it is dropped again', async () => {
    const claimRolledBack = () => rolledBack(db, async () => (await repo.claimBatch(sql, webhookId, 'worker-1', 3, 60_000)).map((d) => d.subject));
    expect(await claimRolledBack()).toEqual(['d0', 'd1', 'd2']);
    const prepared = await db.query(`SELECT name FROM pg_prepared_statements WHERE name = 'webhook_claim'`);
    expect(prepared.rows).toHaveLength(1);
    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN later_column integer`);
    try {
      expect(await claimRolledBack()).toEqual(['d0', 'd1', 'd2']);
    } finally {
      await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN later_column`);
    }
    expect(await claimRolledBack()).toEqual(['d0', 'd1', 'd2']);
  });

  it('claims nothing for a worker that does not hold the lease', async () => {
    expect(await repo.claimBatch(sql, webhookId, 'worker-2', 20, 60_000)).toEqual([]);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE attempts > 0`);
    expect(rows[0].n).toBe(0);
  });

  it('claims only the earliest pending delivery of each subject, and none of a subject whose earliest is not yet due', async () => {
    const hook = 'c2d6a7f1-3b1e-4c55-8a0d-5e7f9b2c4d60';
    await leasedWebhook(db, hook, 'p2');
    // in event order: a1 b1 a2 c1 b2 c2 a3
    const subjects = ['a', 'b', 'a', 'c', 'b', 'c', 'a'];
    const seen = new Map<string, number>();
    await writeParticipantEvents(
      sql,
      subjects.map((s) => {
        seen.set(s, (seen.get(s) ?? 0) + 1);
        return participantEvent('p2', 'dtp.diamond.deleted', s, { n: seen.get(s) }, new Date());
      }),
    );
    // b's first delivery waits for a retry: b2 must wait for it
    await db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour'
        WHERE webhook_id = $1 AND event_seq = (SELECT min(event_seq) FROM webhook_deliveries WHERE webhook_id = $1 AND subject = 'b')`,
      [hook],
    );
    await rolledBack(db, async () => {
      const first = await repo.claimBatch(sql, hook, 'worker-1', 20, 60_000);
      expect(first.map((d) => [d.subject, JSON.parse(d.data_text).n])).toEqual([
        ['a', 1],
        ['c', 1],
      ]);
      // delivered: their subjects' next deliveries come up, b's still waits
      await db.query(`UPDATE webhook_deliveries SET status = 'delivered' WHERE delivery_id = ANY ($1::uuid[])`, [first.map((d) => d.delivery_id)]);
      const second = await repo.claimBatch(sql, hook, 'worker-1', 20, 60_000);
      expect(second.map((d) => [d.subject, JSON.parse(d.data_text).n])).toEqual([
        ['a', 2],
        ['c', 2],
      ]);
    });
  });
});

/**
 * What a claim reads when a webhook has a backlog: the webhook's pending rows are walked in event order only until
 * the batch is full, with one index look-up per candidate for an earlier pending delivery of its subject. Counted in
 * pages read (hits and reads, every relation: this transaction's own statistics), with the table's statistics and
 * before it has any (a new deployment).
 */
describe('the delivery claim with a backlog', () => {
  const repo = new WebhooksRepository();
  const webhookId = '5a8e2f40-1c7d-4e9b-b3a6-0d2c4f6e8a13';
  let db: Client;
  let sql: Sql;
  let url: string;

  beforeAll(async () => {
    ({ db, sql, url } = await claimDatabase('platform_webhook_claim_backlog', { statisticsByHand: true }));
    await leasedWebhook(db, webhookId, 'p1');
    // 5,000 deliveries of as many subjects; the first 3,000 delivered (their entries stay in the pending indexes
    // until a vacuum), 2,000 pending
    for (let b = 0; b < 10; b++) {
      await writeParticipantEvents(sql, diamondEvents(500, b * 500));
    }
    await db.query(
      `UPDATE webhook_deliveries SET status = 'delivered' WHERE delivery_id IN (SELECT delivery_id FROM webhook_deliveries ORDER BY event_seq LIMIT 3000)`,
    );
  });

  afterAll(async () => {
    await db?.end();
  });

  /** Pages the claim of a batch of 20 reads (rolled back: every claim starts from the same rows). */
  const claimPages = async (): Promise<{ pages: number; subjects: string[] }> => {
    const { pages, result } = await pagesDuring(db, () => repo.claimBatch(sql, webhookId, 'worker-1', 20, 60_000));
    return { pages, subjects: result.map((d) => d.subject) };
  };

  it.each([
    ['before the table has statistics', false],
    ['with statistics', true],
  ])('claims the first 20 of 2,000 pending reading a few hundred pages, none of the primary key, %s', async (_label, analyze) => {
    if (analyze) await db.query('ANALYZE webhook_deliveries, participant_events');
    // The first walk marks the delivered rows' index entries dead, once no other session can see the rows. The
    // statement is prepared: after five runs the server may plan it once for any parameters (a generic plan), and that
    // plan is the one measured.
    await noSnapshotHeld(url);
    for (let i = 0; i < 6; i++) await claimPages();
    const { pages, subjects } = await claimPages();
    expect(subjects).toEqual(Array.from({ length: 20 }, (_, i) => `d${3000 + i}`));
    // 206 and 525 pages when written; the claim's earlier form read 6,236 once the table had statistics, and a NOT
    // EXISTS the planner may pull up into an anti join read 2,740 before it had any
    expect(pages).toBeLessThan(1000);
    // The update takes the rows the walk chose at their address (a TID scan). Looked up again by id, they were read
    // through the primary key: 30 of its pages here, 311 on a larger table without statistics. (The plan, not the
    // pages read, is what shows it: an update that finds no room on a row's page writes the new version elsewhere,
    // with new entries in every index, the primary key's too; whether there is room depends on what other sessions
    // keep visible while the earlier claims' row versions wait to be pruned.)
    const reads = deliveryScans(await claimPlan(db, webhookId));
    expect(reads).toContain('Tid Scan');
    expect(reads.filter((r) => r.includes('webhook_deliveries_pkey'))).toEqual([]);
  });
});

/**
 * The worker's statements keep finding their rows by address or key as the table changes under their plans: planned
 * while the table was small (a new deployment's first deliveries, and a prepared statement keeps the plan it settles
 * on), and with statistics taken while nothing was pending, before a receiver's outage left a backlog. Both made the
 * planner read the rows through a whole pending-only index, or the whole table, for every batch.
 */
describe('the delivery claim and outcomes as the table grows under their plans', () => {
  const repo = new WebhooksRepository();
  const hooks = Array.from({ length: 10 }, (_, i) => `3f0a9c2e-5b7d-4e1a-9c3b-${String(i).padStart(12, '0')}`);
  let db: Client;
  let sql: Sql;
  let url: string;

  beforeAll(async () => {
    ({ db, sql, url } = await claimDatabase('platform_webhook_claim_growth', { statisticsByHand: true }));
    for (const hook of hooks) await leasedWebhook(db, hook, 'p1');
  });

  afterAll(async () => {
    await db?.end();
  });

  /** Outcomes (delivered) for the first `n` pending deliveries of `hook`, each at its current attempt. */
  const outcomesFor = async (hook: string, n: number): Promise<AttemptOutcome[]> =>
    (
      await db.query<{ delivery_id: string; attempts: number }>(
        `SELECT delivery_id, attempts FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY event_seq LIMIT $2`,
        [hook, n],
      )
    ).rows.map((d) => ({ delivery_id: d.delivery_id, attempts: d.attempts, status: 'delivered', code: 204, error: null, nextAttemptAt: null, at: new Date() }));

  /** Delivered, as the worker would have: every delivery but the last `keep` events' (per webhook). */
  const deliverAllBut = (keep: number) =>
    db.query(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() WHERE event_seq <= (SELECT max(seq) - $1 FROM participant_events)`, [
      keep,
    ]);

  /** The outcomes of 20 pending deliveries of `hook`, stored: the rows written, and the pages read (rolled back). */
  const storeOutcomes = async (hook: string): Promise<{ pages: number; stored: number }> => {
    const outcomes = await outcomesFor(hook, 20);
    const { pages, result } = await pagesDuring(db, async () => {
      await repo.recordAttempts(sql, outcomes);
      return (
        await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE delivery_id = ANY ($1::uuid[]) AND status = 'delivered'`, [
          outcomes.map((o) => o.delivery_id),
        ])
      ).rows[0].n as number;
    });
    return { pages, stored: result };
  };

  it('planned on a small table, still reads by address and key once it has 40,000 deliveries', async () => {
    // a new deployment: one event to each of the 10 webhooks; the claim and the outcomes run more than the five times
    // after which the server may keep one plan for the prepared claim
    await writeParticipantEvents(sql, diamondEvents(1));
    for (let i = 0; i < 8; i++) {
      await rolledBack(db, () => repo.claimBatch(sql, hooks[0], 'worker-1', 20, 60_000));
      await rolledBack(db, async () => repo.recordAttempts(sql, await outcomesFor(hooks[0], 1)));
    }
    // 4,000 more events, 40,000 deliveries; all delivered but the last 30 events' (their index entries in the
    // pending-only indexes stay until a vacuum)
    for (let b = 0; b < 8; b++) await writeParticipantEvents(sql, diamondEvents(500, 1 + b * 500));
    await deliverAllBut(30);
    await noSnapshotHeld(url);

    expect(claimUpdateReads(await claimPlan(db, hooks[3]))).toEqual(['Tid Scan']);
    const { result: claimed } = await pagesDuring(db, () => repo.claimBatch(sql, hooks[3], 'worker-1', 20, 60_000));
    expect(claimed.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${3971 + i}`));
    // each row by its primary key: about 13 pages per outcome (the look-up, the row's old and new page, the new
    // version's entries in the primary key and the log index), 273 for 20 when written; the plan the earlier form
    // kept read the whole table for each batch (778 here, and growing with the table)
    const { pages, stored } = await storeOutcomes(hooks[3]);
    expect(stored).toBe(20);
    expect(pages).toBeLessThan(500);
  });

  it('with statistics taken while nothing was pending, reads by address and key when a backlog of 3,000 comes', async () => {
    await deliverAllBut(0);
    await noSnapshotHeld(url);
    await db.query('VACUUM ANALYZE webhook_deliveries, participant_events');
    // one webhook's receiver was down: 3,000 events, each delivered to every webhook but that one
    for (let b = 0; b < 6; b++) await writeParticipantEvents(sql, diamondEvents(500, 9000 + b * 500));
    await db.query(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() WHERE status = 'pending' AND webhook_id <> $1`, [hooks[5]]);
    await noSnapshotHeld(url);

    expect(claimUpdateReads(await claimPlan(db, hooks[5]))).toEqual(['Tid Scan']);
    const { result: claimed } = await pagesDuring(db, () => repo.claimBatch(sql, hooks[5], 'worker-1', 20, 60_000));
    expect(claimed.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${9000 + i}`));
    // by primary key, about 16 pages per outcome (330 when written), where the earlier form read every pending row
    // (1,617 pages); another webhook's outcomes do not read the backlog either
    for (const hook of [hooks[5], hooks[6]]) {
      if (hook === hooks[6]) await writeParticipantEvents(sql, diamondEvents(20, 20000));
      const { pages, stored } = await storeOutcomes(hook);
      expect([hook, stored]).toEqual([hook, 20]);
      expect([hook, pages < 500]).toEqual([hook, true]);
    }
  });
});

/**
 * A claim and another transaction's write to one of the rows it chose: the claim's update reads the rows at the
 * addresses its walk found in the statement's snapshot, and a row changed since is claimed only if it is still
 * pending (webhooks.repository.ts `claimBatch`).
 */
describe('the delivery claim racing another write', () => {
  const repo = new WebhooksRepository();
  const webhookId = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
  let db: Client;
  let sql: Sql;
  let other: Client;

  beforeAll(async () => {
    let url: string;
    ({ db, sql, url } = await claimDatabase('platform_webhook_claim_race'));
    other = new Client({ connectionString: url });
    await other.connect();
    await leasedWebhook(db, webhookId, 'p1');
    await writeParticipantEvents(sql, diamondEvents(30));
  });

  afterAll(async () => {
    await other?.end();
    await db?.end();
  });

  it('does not count an attempt of a delivery another transaction delivered while the claim waited for its row', async () => {
    const { rows: pid } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // another worker's outcome for d0, uncommitted: the claim's snapshot still sees d0 pending, and its update waits
    await other.query('BEGIN');
    await other.query(`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now() WHERE webhook_id = $1 AND subject = 'd0'`, [webhookId]);
    const claiming = repo.claimBatch(sql, webhookId, 'worker-1', 20, 60_000);
    await waitingOnLock(other, pid[0].pid, 'the claim waiting for the row');
    await other.query('COMMIT');
    const claimed = await claiming;
    expect(claimed.map((d) => d.subject)).toEqual(Array.from({ length: 19 }, (_, i) => `d${i + 1}`));
    const { rows } = await db.query(`SELECT status, attempts FROM webhook_deliveries WHERE webhook_id = $1 AND subject = 'd0'`, [webhookId]);
    expect(rows).toEqual([{ status: 'delivered', attempts: 0 }]);
  });
});

/**
 * Where the claim's walk over a webhook's pending deliveries starts (`pending_from`, webhooks.repository.ts
 * `moveWalkStart`). A delivered row's entries stay in the pending-only indexes until a vacuum; walked from the webhook's
 * first entry, a claim stepped over every one of them. The start moves up only behind every transaction that might
 * still add a delivery below it, and a retry by hand moves it down.
 */
describe("where the delivery claim's walk starts", () => {
  const repo = new WebhooksRepository();
  const webhookId = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
  let db: Client;
  let sql: Sql;
  let url: string;
  let other: Client;

  beforeAll(async () => {
    ({ db, sql, url } = await claimDatabase('platform_webhook_claim_start', { statisticsByHand: true }));
    other = new Client({ connectionString: url });
    await other.connect();
    await leasedWebhook(db, webhookId, 'p1');
  });

  afterAll(async () => {
    await other?.end();
    await db?.end();
  });

  /** Leases the webhook to worker-1 by hand, due delivery or not (the lease's own look is measured below). */
  const lease = () => db.query(`UPDATE webhooks SET leased_by = 'worker-1', lease_until = now() + interval '1 hour' WHERE webhook_id = $1`, [webhookId]);

  /**
   * What the worker does with a lease of one batch: claims a batch, stores every attempt as delivered, moves the walk's
   * start (the worker does so every 500 deliveries of a webhook) and releases the webhook; the subjects claimed.
   */
  const deliverBatch = async (): Promise<string[]> => {
    await lease();
    const claimed = await repo.claimBatch(sql, webhookId, 'worker-1', 20, 3_600_000);
    await repo.recordAttempts(
      sql,
      claimed.map((d) => ({
        delivery_id: d.delivery_id,
        attempts: d.attempts,
        status: 'delivered',
        code: 204,
        error: null,
        nextAttemptAt: null,
        at: new Date(),
      })),
    );
    await repo.moveWalkStart(sql, webhookId);
    await repo.release(sql, webhookId, 'worker-1');
    return claimed.map((d) => d.subject);
  };

  const walkStart = async (): Promise<{ pending_from: number; lowest_pending: number | null }> =>
    (
      await db.query(
        `SELECT w.pending_from::int AS pending_from,
                (SELECT min(event_seq)::int FROM webhook_deliveries d WHERE d.webhook_id = w.webhook_id AND d.status = 'pending') AS lowest_pending
           FROM webhooks w WHERE w.webhook_id = $1`,
        [webhookId],
      )
    ).rows[0];

  const seqOf = async (subject: string): Promise<number> =>
    (await db.query(`SELECT event_seq::int AS seq FROM webhook_deliveries WHERE webhook_id = $1 AND subject = $2`, [webhookId, subject])).rows[0].seq;

  it('after 20,000 deliveries since the last vacuum, claims and leases reading a few pages, not every delivered entry', async () => {
    for (let b = 0; b < 40; b++) await writeParticipantEvents(sql, diamondEvents(500, b * 500));
    await writeParticipantEvents(sql, diamondEvents(40, 20000));
    for (let i = 0; i < 1000; i++) await deliverBatch();
    await noSnapshotHeld(url);
    // statistics that see little pending, as a worker that keeps up leaves them (no vacuum)
    await db.query('ANALYZE webhook_deliveries, participant_events, webhooks');

    // the start follows the lowest pending delivery, two moves behind it, never past it
    const { pending_from, lowest_pending } = await walkStart();
    expect(lowest_pending).toBe(await seqOf('d20000'));
    expect(pending_from).toBeLessThanOrEqual(lowest_pending!);
    expect(pending_from).toBeGreaterThan(lowest_pending! - 100);

    const leasing = await pagesDuring(db, () => repo.leaseWebhooks(sql, 'worker-1', 1, 3_600_000));
    expect(leasing.result.map((w) => w.webhook_id)).toEqual([webhookId]);
    await lease();
    const claim = await pagesDuring(db, () => repo.claimBatch(sql, webhookId, 'worker-1', 20, 3_600_000));
    expect(claim.result.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${20000 + i}`));
    // walked from the webhook's first entry, the claim read 2,258 pages (each candidate's look-up for an earlier
    // delivery of its subject walked the dead entries too), and the lease's look for a due delivery 110
    expect(claim.pages).toBeLessThan(400);
    expect(leasing.pages).toBeLessThan(20);

    // a backlog comes, and statistics that see it: the claim's plan then walks the pending index first, and took the
    // start into account only after reading each entry when it was compared with the joined lease row
    await writeParticipantEvents(sql, diamondEvents(2000, 40000));
    await db.query('ANALYZE webhook_deliveries, participant_events, webhooks');
    const walk = await pagesDuring(db, () => repo.claimBatch(sql, webhookId, 'worker-1', 20, 3_600_000), 'webhook_deliveries_due');
    expect(walk.result.map((d) => d.subject)).toEqual(Array.from({ length: 20 }, (_, i) => `d${20000 + i}`));
    expect(walk.pages).toBeLessThan(10);
    await repo.release(sql, webhookId, 'worker-1');
    while ((await deliverBatch()).length > 0); // what is left, for the tests below
  });

  it('still claims a delivery whose transaction was open while later ones were delivered', async () => {
    // `other` records an event and keeps its transaction open; later events commit and are delivered meanwhile
    await other.query('BEGIN');
    await writeParticipantEvents(sqlOn(other), [participantEvent('p1', 'dtp.diamond.deleted', 'late', { diamond_id: 'late' }, new Date())]);
    await writeParticipantEvents(sql, diamondEvents(100, 30000));
    const delivered: string[] = [];
    for (let i = 0; i < 10; i++) delivered.push(...(await deliverBatch()));
    expect(delivered).toContain('d30099');
    expect(delivered).not.toContain('late');
    await other.query('COMMIT');

    const late = await seqOf('late');
    expect((await walkStart()).pending_from).toBeLessThanOrEqual(late);
    expect(await deliverBatch()).toEqual(['late']);
    expect(await deliverBatch()).toEqual([]);
  });

  it('claims again a delivery retried by hand, however far behind the start it lies', async () => {
    for (let i = 0; i < 3; i++) await deliverBatch();
    const old = await seqOf('d5');
    expect((await walkStart()).pending_from).toBeGreaterThan(old);

    const retried = await repo.retry(
      sql,
      webhookId,
      (await db.query(`SELECT delivery_id FROM webhook_deliveries WHERE webhook_id = $1 AND subject = 'd5'`, [webhookId])).rows[0].delivery_id,
    );
    expect(retried?.status).toBe('pending');
    expect((await walkStart()).pending_from).toBeLessThanOrEqual(old);
    expect(await deliverBatch()).toEqual(['d5']);
  });

  it.each([
    ['about to move it', 'd7', true],
    ['about to check the open transactions', 'd9', false],
  ])("keeps a retry by hand committed while the walk start's move waited for the webhook (%s)", async (_label, subject, planChecked) => {
    // serves until the start's planned move is in the wanted state: checked (the next move moves the start) or not
    const checked = async (): Promise<boolean> =>
      (await db.query(`SELECT pending_from_next_at IS NULL AS checked FROM webhooks WHERE webhook_id = $1`, [webhookId])).rows[0].checked;
    for (let i = 0; i < 4 || (await checked()) !== planChecked; i++) {
      if (i > 10) throw new Error('the planned move never reached the wanted state');
      await deliverBatch();
    }
    const old = await seqOf(subject);
    expect((await walkStart()).pending_from).toBeGreaterThan(old);
    const { rows: pid } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const id = (await db.query(`SELECT delivery_id FROM webhook_deliveries WHERE webhook_id = $1 AND subject = $2`, [webhookId, subject])).rows[0].delivery_id;

    // the retry holds the webhook's row; the move's snapshot does not see the retry, and its update waits for the row
    await other.query('BEGIN');
    await repo.retry(sqlOn(other), webhookId, id);
    const moving = repo.moveWalkStart(sql, webhookId);
    await waitingOnLock(other, pid[0].pid, 'the move waiting for the webhook').catch(async (err: unknown) => {
      await other.query('ROLLBACK');
      throw err;
    });
    await other.query('COMMIT');
    await moving;
    expect((await walkStart()).pending_from).toBeLessThanOrEqual(old);
    expect(await deliverBatch()).toEqual([subject]);
  });
});
