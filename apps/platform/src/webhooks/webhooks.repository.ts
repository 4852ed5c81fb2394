import { Injectable } from '@nestjs/common';
import type { Sql } from '@dtp/database';
import { AtRestCipher } from '@dtp/service-kit';
import type { DeliveryRow, WebhookRow } from './webhook.entity';

/** A delivery claimed by a worker, with what its attempt sends. */
export interface ClaimedDelivery extends DeliveryRow {
  time: Date;
  /** The event's data as stored (JSON text). */
  data_text: string;
}

/** What one attempt of a delivery came to (`at`: when its answer came). */
export interface AttemptOutcome {
  delivery_id: string;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  code: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
  at: Date;
}

/** A page of the feed: events with their data as JSON text. */
export interface FeedRow {
  seq: string;
  event_id: string;
  type: string;
  subject: string;
  time: Date;
  data_text: string;
}

/** A delivery's columns, named: a prepared statement's result must not change when a migration adds one. */
const DELIVERY_COLUMNS = [
  'delivery_id',
  'webhook_id',
  'event_seq',
  'event_id',
  'type',
  'subject',
  'status',
  'attempts',
  'next_attempt_at',
  'first_attempt_at',
  'last_status_code',
  'last_error',
  'delivered_at',
  'created_at',
]
  .map((c) => `d.${c}`)
  .join(', ');

/**
 * A condition the delivery worker's own writes (leases, claims, outcomes, renewals, releases) add to their WHERE. It
 * turns `synchronous_commit` off for the statement's transaction only (`set_config`'s `is_local`), and it is
 * evaluated before a row is written, so the commit does not wait for the WAL to reach the disk. The worker runs each
 * of these statements on its own, in a transaction of its own: in a caller's transaction the whole transaction would
 * commit that way. A database crash can lose the last fraction of a second of them, and none of delivery's promises
 * depends on them: an outcome lost leaves its delivery pending, to be sent again (at least once; receivers
 * deduplicate by the event's id), a lost attempt count is counted again, a lost lease runs out. Registrations,
 * subscriptions, retries by hand and a 410's disabling of a webhook keep durable commits.
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true) = 'off'`;

/**
 * In moveWalkStart's update of its webhook: the walk's planned move (`pending_from_next`, `_at`) is as the statement's
 * snapshot saw it. A retry by hand committed meanwhile drops the plan, and the update, which then sees the row as that
 * retry left it, must not put back what it read before.
 */
const UNCHANGED = `w.pending_from_next IS NOT DISTINCT FROM low.seen_next AND w.pending_from_next_at IS NOT DISTINCT FROM low.seen_at`;

/**
 * `webhooks`, `webhook_deliveries` and `participant_events` (the events are written by participantEventsCtes in the
 * transactions of their causes). Raw SQL throughout: the worker's leases (SKIP LOCKED) and guarded updates,
 * the feed's keyset read, array columns.
 */
@Injectable()
export class WebhooksRepository {
  async list(sql: Sql, participantId: string): Promise<WebhookRow[]> {
    return sql.rows<WebhookRow>(`SELECT * FROM webhooks WHERE participant_id = $1 ORDER BY created_at, webhook_id`, [participantId]);
  }

  async find(sql: Sql, participantId: string, webhookId: string, lock = false): Promise<WebhookRow | null> {
    const rows = await sql.rows<WebhookRow>(`SELECT * FROM webhooks WHERE webhook_id = $1 AND participant_id = $2${lock ? ' FOR UPDATE' : ''}`, [
      webhookId,
      participantId,
    ]);
    return rows[0] ?? null;
  }

  // raw SQL: an advisory lock per participant serialises creations, so the per-participant cap holds.
  async lockParticipant(sql: Sql, participantId: string): Promise<void> {
    await sql.query(`SELECT pg_advisory_xact_lock(hashtext('webhooks:' || $1))`, [participantId]);
  }

  async count(sql: Sql, participantId: string): Promise<number> {
    const rows = await sql.rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks WHERE participant_id = $1`, [participantId]);
    return rows[0].n;
  }

  async insert(
    sql: Sql,
    w: Pick<WebhookRow, 'webhook_id' | 'participant_id' | 'url' | 'event_types' | 'description' | 'secret' | 'created_at'>,
  ): Promise<WebhookRow> {
    const rows = await sql.rows<WebhookRow>(
      `INSERT INTO webhooks (webhook_id, participant_id, url, event_types, description, secret, created_at) VALUES ($1, $2, $3, $4::text[], $5, $6, $7) RETURNING *`,
      [w.webhook_id, w.participant_id, w.url, w.event_types, w.description, w.secret, w.created_at],
    );
    return rows[0];
  }

  async update(sql: Sql, w: WebhookRow): Promise<WebhookRow> {
    const rows = await sql.rows<WebhookRow>(
      `UPDATE webhooks SET url = $2, event_types = $3::text[], description = $4, enabled = $5, disabled_reason = $6, secret = $7, previous_secret = $8,
              previous_secret_until = $9
        WHERE webhook_id = $1 RETURNING *`,
      [w.webhook_id, w.url, w.event_types, w.description, w.enabled, w.disabled_reason, w.secret, w.previous_secret, w.previous_secret_until],
    );
    return rows[0];
  }

  /** Webhooks whose secret (or previous secret) is stored as plain text, locked for the caller's transaction. */
  async plainSecrets(sql: Sql): Promise<Pick<WebhookRow, 'webhook_id' | 'secret' | 'previous_secret'>[]> {
    return sql.rows(
      `SELECT webhook_id, secret, previous_secret FROM webhooks
        WHERE NOT starts_with(secret, $1) OR NOT starts_with(previous_secret, $1) ORDER BY webhook_id FOR UPDATE`,
      [AtRestCipher.SEALED_PREFIX],
    );
  }

  /** Every webhook's secrets, locked for the caller's transaction (resealing them with a new key). */
  async allSecrets(sql: Sql): Promise<Pick<WebhookRow, 'webhook_id' | 'secret' | 'previous_secret'>[]> {
    return sql.rows(`SELECT webhook_id, secret, previous_secret FROM webhooks ORDER BY webhook_id FOR UPDATE`);
  }

  async setSecrets(sql: Sql, webhookId: string, secret: string, previous: string | null): Promise<void> {
    await sql.query(`UPDATE webhooks SET secret = $2, previous_secret = $3 WHERE webhook_id = $1`, [webhookId, secret, previous]);
  }

  /** How many webhooks have an encrypted secret (start-up: are there any this instance cannot open?). */
  async sealedSecretCount(sql: Sql): Promise<number> {
    const rows = await sql.rows<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks WHERE starts_with(secret, $1) OR starts_with(previous_secret, $1)`, [
      AtRestCipher.SEALED_PREFIX,
    ]);
    return rows[0].n;
  }

  /** Deletes a webhook and its deliveries (no foreign key cascades: migration 1765072800000); false when none. */
  async delete(sql: Sql, participantId: string, webhookId: string): Promise<boolean> {
    const rows = await sql.rows<{ n: number }>(
      `WITH w AS (DELETE FROM webhooks WHERE webhook_id = $1 AND participant_id = $2 RETURNING webhook_id),
            d AS (DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT webhook_id FROM w))
       SELECT count(*)::int AS n FROM w`,
      [webhookId, participantId],
    );
    return rows[0].n > 0;
  }

  async deliveries(sql: Sql, webhookId: string, limit: number): Promise<DeliveryRow[]> {
    return sql.rows<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY event_seq DESC, created_at DESC LIMIT $2`, [
      webhookId,
      limit,
    ]);
  }

  /**
   * Puts a delivery back to pending, due now (a retry by hand); null when there is no such delivery. The delivery may
   * lie below where the worker's walk starts (`pending_from`, see moveWalkStart): that is lowered to it, in the same
   * transaction, and a move the worker had planned is dropped.
   */
  async retry(sql: Sql, webhookId: string, deliveryId: string): Promise<DeliveryRow | null> {
    const rows = await sql.rows<DeliveryRow>(
      `WITH d AS (UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), first_attempt_at = NULL
                   WHERE webhook_id = $1 AND delivery_id = $2 RETURNING *),
            w AS (UPDATE webhooks w SET pending_from = least(w.pending_from, d.event_seq), pending_from_next = NULL, pending_from_next_at = NULL
                    FROM d WHERE w.webhook_id = d.webhook_id)
       SELECT * FROM d`,
      [webhookId, deliveryId],
    );
    return rows[0] ?? null;
  }

  // --- the event feed ---

  async feed(sql: Sql, participantId: string, after: bigint, limit: number, types: string[] | null): Promise<FeedRow[]> {
    return sql.rows<FeedRow>(
      `SELECT seq, event_id, type, subject, time, data::text AS data_text FROM participant_events
        WHERE participant_id = $1 AND seq > $2 AND type <> 'dtp.ping' AND ($4::text[] IS NULL OR type = ANY ($4::text[]))
        ORDER BY seq LIMIT $3`,
      [participantId, after.toString(), limit, types],
    );
  }

  /** Where a feed with nothing after `after` stands: the highest seq of the caller's events (or `after`). */
  async lastSeq(sql: Sql, participantId: string): Promise<bigint> {
    const rows = await sql.rows<{ seq: string | null }>(`SELECT max(seq)::text AS seq FROM participant_events WHERE participant_id = $1`, [participantId]);
    return BigInt(rows[0].seq ?? '0');
  }

  /**
   * Deletes events (and their deliveries) older than `before`, up to `batch` at a time; how many events went. An
   * event's deliveries are found through its participant's webhooks, on the log index (webhook_id, event_seq): a
   * delivery only ever goes to a webhook of its event's participant, and a deleted webhook's deliveries go with it.
   */
  async purge(sql: Sql, before: Date, batch: number): Promise<number> {
    const rows = await sql.rows<{ n: number }>(
      `WITH e AS (DELETE FROM participant_events WHERE seq IN (SELECT seq FROM participant_events WHERE time < $1 ORDER BY seq LIMIT $2)
                  RETURNING seq, participant_id),
            d AS (DELETE FROM webhook_deliveries d USING e JOIN webhooks w ON w.participant_id = e.participant_id
                   WHERE d.webhook_id = w.webhook_id AND d.event_seq = e.seq)
       SELECT count(*)::int AS n FROM e`,
      [before, batch],
    );
    return rows[0].n;
  }

  // --- the delivery worker ---

  // raw SQL: FOR NO KEY UPDATE SKIP LOCKED, least recently served first (fairness between webhooks). Not FOR UPDATE: every
  // transaction writing a delivery holds FOR KEY SHARE on its webhook (the foreign key) until it commits, and FOR
  // UPDATE would skip the webhook while any such write is open: under steady writes it was hardly ever leased.
  /**
   * Leases up to `n` enabled webhooks that have a due delivery and no live lease to `worker` until `leaseMs` from now:
   * while a worker holds a webhook no other delivers to it (one delivery in flight per webhook).
   */
  async leaseWebhooks(sql: Sql, worker: string, n: number, leaseMs: number): Promise<WebhookRow[]> {
    return sql.rows<WebhookRow>(
      `UPDATE webhooks w SET lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000), leased_by = $1
        WHERE ${ASYNC_COMMIT} AND w.webhook_id IN (
          SELECT h.webhook_id FROM webhooks h
           WHERE h.enabled AND (h.lease_until IS NULL OR h.lease_until < clock_timestamp())
             AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = h.webhook_id AND d.status = 'pending' AND d.event_seq >= h.pending_from
                            AND d.next_attempt_at <= clock_timestamp())
           ORDER BY h.served_at NULLS FIRST, h.webhook_id
           LIMIT $2
           FOR NO KEY UPDATE SKIP LOCKED)
        RETURNING w.*`,
      [worker, n, leaseMs],
    );
  }

  // raw SQL: the next deliveries in order per subject (a later event of a subject waits while an earlier one is pending).
  /**
   * Claims up to `n` due deliveries of a webhook `worker` leases, earliest first, at most one per subject (only a
   * subject's earliest pending delivery is due), counting each one's attempt (so each attempt has its own number),
   * and renews the lease, in one statement. Answers them in event order; empty when none is due or the lease is lost.
   * The lease is what keeps other workers off these rows, so they are not row-locked first: a lock is one more WAL
   * record per delivery, and the count is a heap-only update (the table's pages keep room: migration 1765159200000).
   *
   * "Earliest pending of its subject" is asked as "no earlier pending delivery of its subject" (`NOT EXISTS ...
   * event_seq <`): one look-up per candidate, in `webhook_deliveries_pending` (webhook, subject, event_seq) once the
   * table has statistics, while the webhook's pending rows are walked in event order on `webhook_deliveries_due` and
   * the walk stops when the batch is full. Asked as `min(event_seq) = event_seq`, a condition the planner cannot
   * estimate, it read every pending row of the webhook once the table had statistics, checked each and sorted them:
   * 6,236 pages for a batch of 20 from a backlog of 2,000, against 206 now. `OFFSET 0` keeps the NOT EXISTS a
   * look-up per candidate: pulled up into an anti join, it read the backlog once per candidate on a table without
   * statistics yet (2,740 pages; 525 now). webhook-claim.spec.ts counts both.
   *
   * The walk hands the rows it chose to the update by their address (`ctid`), which the update reads directly: by
   * `delivery_id` it looked each one up again in the primary key, and without statistics the planner also intersected
   * that with a bitmap of every pending row of the table (pages per claim in the benchmark: 600 to 700 -> about 430;
   * with statistics 200 -> 187 in the test). Both happen in one statement and one snapshot; a row another transaction
   * changed meanwhile (a retry by hand) is claimed only if it is still pending, or left to the next claim.
   *
   * The update joins the walk's rows (`d.ctid = next.row_id`: one address look-up per row, whatever the statistics)
   * and checks the status against the walk's (`d.status = next.status`, always 'pending'), not against the literal:
   * `d.status = 'pending'` let the planner read the rows through a whole pending-only index instead (the statement
   * holds that index's predicate), the moment it believed that index small. It did whenever the plan was made on a
   * small table, or with statistics taken while little was pending: a prepared plan made in a new deployment's first
   * minutes and kept as the table grew read every pending row, and every index entry of a delivered one not yet
   * vacuumed, for each claim (19 ms for a batch of 20 among 40,000 rows), as did a backlog after a quiet ANALYZE
   * (8.5 ms among 20,000 pending). webhook-claim.spec.ts plans it on a small table, then grows it.
   *
   * Prepared once per connection (`webhook_claim`), like the release: parsing them was a large part of a small batch's
   * database time. The claim's result names its columns. The server still plans it at each call (0.3 ms, as long as
   * running it; `pg_prepared_statements.custom_plans`): a plan kept for any parameters costs `LIMIT $3` as a tenth of
   * the pending rows. With the batch size written into the text it kept one plan, 15 to 20 us less per delivery with a
   * large backlog, but a plan made on a small table with statistics scanned the whole table, sorted it and joined the
   * update by hash (2.2 ms per claim of 20 in the benchmark's 200-delivery rounds against 1 ms, and growing with the
   * table until its next analyse), so the claim is planned for the table as it is.
   *
   * The walk, each candidate's look-up and the lease's look for a due delivery start at the webhook's `pending_from`
   * (see moveWalkStart): below it no delivery of the webhook is pending, only delivered rows' entries not yet vacuumed.
   * The walk takes it as a value (`(SELECT pending_from FROM lease)`), which the index scan starts from whichever way
   * the join is planned; compared with the joined `lease.pending_from`, a plan that walked the index first checked it
   * only after reading each entry.
   */
  async claimBatch(sql: Sql, webhookId: string, worker: string, n: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const rows = await sql.rows<ClaimedDelivery>(
      `WITH lease AS (
         UPDATE webhooks SET lease_until = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
          WHERE webhook_id = $1 AND leased_by = $2 AND enabled AND ${ASYNC_COMMIT} RETURNING webhook_id, pending_from),
       next AS (
         SELECT d.ctid AS row_id, d.status FROM webhook_deliveries d JOIN lease ON lease.webhook_id = d.webhook_id
          WHERE d.webhook_id = $1 AND d.status = 'pending' AND d.event_seq >= (SELECT pending_from FROM lease) AND d.next_attempt_at <= clock_timestamp()
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                             WHERE p.webhook_id = $1 AND p.subject = d.subject AND p.status = 'pending' AND p.event_seq < d.event_seq
                               AND p.event_seq >= (SELECT pending_from FROM lease) OFFSET 0)
          ORDER BY d.event_seq LIMIT $3)
       UPDATE webhook_deliveries d SET attempts = d.attempts + 1, first_attempt_at = coalesce(d.first_attempt_at, clock_timestamp())
         FROM next, participant_events e
        WHERE d.ctid = next.row_id AND d.status = next.status AND e.seq = d.event_seq
       RETURNING ${DELIVERY_COLUMNS}, e.time, e.data::text AS data_text`,
      [webhookId, worker, n, leaseMs],
      'webhook_claim',
    );
    return rows.sort((a, b) => Number(a.event_seq) - Number(b.event_seq));
  }

  /**
   * Records attempts' outcomes in one statement, each only if that attempt is still its delivery's latest (guarded by
   * its number) and the delivery still pending (a retry by hand or another worker's later attempt wins).
   *
   * Each row is found by its primary key, so the cost follows the outcomes, not the backlog. Two things keep it so:
   * - The status is compared with `(SELECT 'pending'::text)`, a value the planner cannot see. Against the literal, the
   *   statement holds the predicate of the pending-only indexes, and the planner read every pending row through one
   *   of them whenever its statistics said few were pending: after a quiet ANALYZE, a receiver's outage left 20,000
   *   pending, and each batch of 20 outcomes read all of them (12 ms; 0.7 ms by key).
   * - It is not prepared. A plan kept for any parameters is made once, on the table as it is then: made in a new
   *   deployment's first minutes, it scanned the whole table for every batch once the table had grown (278 ms for 20
   *   outcomes among 40,000 rows). Planned each time, it sees the table's size (about 0.1 ms).
   */
  async recordAttempts(sql: Sql, outcomes: AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await sql.exec(
      `UPDATE webhook_deliveries d SET status = o.status, last_status_code = o.code, last_error = o.error,
              next_attempt_at = coalesce(o.next_at, d.next_attempt_at), delivered_at = CASE WHEN o.status = 'delivered' THEN o.at ELSE d.delivered_at END
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::timestamptz[], $7::timestamptz[]) AS o(delivery_id, attempts, status, code, error, next_at, at)
        WHERE d.delivery_id = o.delivery_id AND d.attempts = o.attempts AND d.status = (SELECT 'pending'::text) AND ${ASYNC_COMMIT}`,
      [
        outcomes.map((o) => o.delivery_id),
        outcomes.map((o) => o.attempts),
        outcomes.map((o) => o.status),
        outcomes.map((o) => o.code),
        outcomes.map((o) => o.error),
        outcomes.map((o) => o.nextAttemptAt),
        outcomes.map((o) => o.at),
      ],
    );
  }

  /** Extends `worker`'s lease of a webhook to `leaseMs` from now; false when the worker no longer holds it. */
  async renewLease(sql: Sql, webhookId: string, worker: string, leaseMs: number): Promise<boolean> {
    const n = await sql.exec(
      `UPDATE webhooks SET lease_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE webhook_id = $1 AND leased_by = $2 AND enabled AND ${ASYNC_COMMIT}`,
      [webhookId, worker, leaseMs],
    );
    return n > 0;
  }

  /** Whether any webhook is enabled (the worker leases nothing while none is). */
  async anyEnabled(sql: Sql): Promise<boolean> {
    const rows = await sql.rows<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM webhooks WHERE enabled) AS any`, [], 'webhooks_any_enabled');
    return rows[0].any;
  }

  /** Disables a webhook whose receiver answered 410 Gone. */
  async disableGone(sql: Sql, webhookId: string): Promise<void> {
    await sql.exec(`UPDATE webhooks SET enabled = false, disabled_reason = 'gone' WHERE webhook_id = $1`, [webhookId]);
  }

  /**
   * Moves where the claims' walk over a webhook's pending deliveries starts.
   *
   * **The walk's lower bound** (`webhooks.pending_from`, migration 1765332000000). A delivered row's entries stay in the
   * pending-only indexes until a vacuum, and they lie in front of the pending ones (lower `event_seq`). Walked from the
   * webhook's first entry, every claim, each candidate's look-up for an earlier pending delivery of its subject and the
   * lease's look for a due delivery stepped over all of them: after 20,000 deliveries since the last vacuum, 2,258
   * pages for a claim of 20 and 110 for the lease's look (208 and 12 from the bound; webhook-claim.spec.ts). All three
   * now start at `pending_from`, below which no delivery of the webhook is pending. Moving it up is the care: an event's
   * `event_seq` is taken when its transaction writes it and the row is seen only at its commit, so a transaction open
   * now may still add a pending delivery below the lowest pending one this statement sees. So the bound moves over three
   * calls:
   * - one plans the move: `pending_from_next` = the lowest pending delivery it sees (or the webhook's last delivery + 1
   *   when none is pending), `pending_from_next_at` = the time, after the statement's snapshot;
   * - the next checks that no client session of this database is still in a transaction begun at or before that time
   *   (`pg_stat_activity.xact_start`; any transaction begun later takes a higher `event_seq`), and marks the plan
   *   checked (`_at` null). Sessions of other roles show no `xact_start`: only the platform's role writes deliveries.
   *   With `track_activities` off nothing is ever checked and the bound stays where it is;
   * - the next moves `pending_from` to the plan, or to the lowest pending delivery it sees if lower (a transaction
   *   checked as ended has committed by now: this statement's snapshot, taken after the check, sees its rows), and
   *   plans the next move.
   * The worker calls this before releasing a webhook once it has claimed 500 of its deliveries since the last call
   * (delivery-worker.ts WALK_MOVE_EVERY), so the bound trails the lowest pending delivery by 1,000 to 1,500. Not in
   * the claim: the claim is planned at every call, and these clauses doubled its planning time. Not prepared: a plan
   * kept for any parameters, made while the table was small, would read the whole table for its look-ups once it had
   * grown. A retry by hand lowers `pending_from` to its delivery and drops a planned move, in its own transaction.
   * This update keeps what such a retry wrote meanwhile (UNCHANGED): it waits for the row and then sees it as the retry
   * left it, while its CTEs read it as it was before.
   */
  async moveWalkStart(sql: Sql, webhookId: string): Promise<void> {
    await sql.exec(
      `WITH cur AS (
         SELECT pending_from, pending_from_next, pending_from_next_at FROM webhooks WHERE webhook_id = $1),
       low AS (
         SELECT coalesce(
                  (SELECT d.event_seq FROM webhook_deliveries d
                    WHERE d.webhook_id = $1 AND d.status = 'pending' AND d.event_seq >= cur.pending_from ORDER BY d.event_seq LIMIT 1),
                  (SELECT d.event_seq + 1 FROM webhook_deliveries d WHERE d.webhook_id = $1 ORDER BY d.event_seq DESC LIMIT 1),
                  cur.pending_from) AS seq,
                cur.pending_from_next AS seen_next, cur.pending_from_next_at AS seen_at,
                CASE WHEN cur.pending_from_next IS NOT NULL AND cur.pending_from_next_at IS NOT NULL
                      AND current_setting('track_activities')::boolean
                     THEN NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                                       WHERE a.datname = current_database() AND a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
                                         AND a.xact_start <= cur.pending_from_next_at)
                     ELSE false END AS settled
           FROM cur)
       UPDATE webhooks w SET
              pending_from = CASE WHEN ${UNCHANGED} AND low.seen_next IS NOT NULL AND low.seen_at IS NULL THEN least(low.seen_next, low.seq)
                                  ELSE w.pending_from END,
              pending_from_next = CASE WHEN ${UNCHANGED} AND (low.seen_next IS NULL OR low.seen_at IS NULL) THEN low.seq
                                       ELSE w.pending_from_next END,
              pending_from_next_at = CASE WHEN ${UNCHANGED} AND (low.seen_next IS NULL OR low.seen_at IS NULL) THEN clock_timestamp()
                                          WHEN ${UNCHANGED} AND low.settled THEN NULL
                                          ELSE w.pending_from_next_at END
         FROM low
        WHERE w.webhook_id = $1 AND ${ASYNC_COMMIT}`,
      [webhookId],
    );
  }

  async release(sql: Sql, webhookId: string, worker: string): Promise<void> {
    await sql.exec(
      `UPDATE webhooks SET lease_until = NULL, leased_by = NULL, served_at = clock_timestamp() WHERE webhook_id = $1 AND leased_by = $2 AND ${ASYNC_COMMIT}`,
      [webhookId, worker],
      'webhook_release',
    );
  }

  /** For the metrics: deliveries pending (due or not) and failed. */
  async backlog(sql: Sql): Promise<{ pending: number; failed: number; oldest_pending_seconds: number }> {
    const rows = await sql.rows<{ pending: number; failed: number; oldest_pending_seconds: number }>(
      `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'failed')::int AS failed,
              coalesce(extract(epoch FROM clock_timestamp() - min(created_at) FILTER (WHERE status = 'pending')), 0)::float8 AS oldest_pending_seconds
         FROM webhook_deliveries d WHERE status <> 'delivered' AND EXISTS (SELECT 1 FROM webhooks w WHERE w.webhook_id = d.webhook_id)`,
    );
    return rows[0];
  }
}
